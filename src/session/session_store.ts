/**
 * The session seam (design §5): an append-only journal per session, with locking and resume
 * repair. The real store is {@linkcode FileSessionStore}; unit tests use
 * {@linkcode MemorySessionStore}, which behaves the same.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { ToolCallRepair } from "./repair_tool_calls.ts";
import type { RewindRecord } from "./journal_record.ts";

export type { ToolCallRepair } from "./repair_tool_calls.ts";
export type {
  PendingToolCall,
  SessionCheckpoint,
  SessionRecords,
  SessionRewind,
  SessionSpend,
  SessionUsage,
  TornTail,
} from "./session_records.ts";
import type {
  PendingToolCall,
  SessionCheckpoint,
  SessionRecords,
  SessionSpend,
  SessionUsage,
  TornTail,
} from "./session_records.ts";

/**
 * What a session records about itself (never the API key).
 *
 * @example Show a session
 * ```ts
 * import type { SessionMeta } from "./session_store.ts";
 * const meta: SessionMeta = {
 *   id: "20250101-120000-abcdef", createdAt: "2025-01-01T12:00:00.000Z", workspace: "/srv/ws",
 *   model: "gpt-4.1-mini", baseUrl: "http://127.0.0.1:8080/v1", title: "fix the failing test",
 * };
 * if (`${meta.id} ${meta.title}` !== "20250101-120000-abcdef fix the failing test") throw new Error("meta");
 * ```
 */
export interface SessionMeta {
  /** The session id: generated `YYYYMMDD-HHMMSS-<6 hex>` (UTC) or a name given by the operator. */
  id: string;
  /** ISO 8601 time the session was created. */
  createdAt: string;
  /** The workspace the session runs in (absolute path). */
  workspace: string;
  /** The model name. */
  model: string;
  /** The OpenAI-compatible base URL. */
  baseUrl: string;
  /** The first line of the task, at most 80 characters. */
  title: string;
}

/**
 * The fields of {@linkcode SessionMeta} that change over a session's life (`odek continue` flags).
 *
 * @example Continue with another model
 * ```ts
 * import type { SessionMetaPatch } from "./session_store.ts";
 * const patch: SessionMetaPatch = { model: "gpt-4.1" };
 * if (patch.workspace !== undefined) throw new Error("only the model changes");
 * ```
 */
export interface SessionMetaPatch {
  /** The new model name. */
  model?: string;
  /** The new base URL. */
  baseUrl?: string;
  /** The new workspace. */
  workspace?: string;
}

/**
 * The context manager's rolling digest as a session keeps it: the transcript's turn groups that
 * start before message index `coveredUntil` are summarised by `digest` (docs/context.md).
 *
 * @example A digest of the first turns
 * ```ts
 * import type { SessionCompaction } from "./session_store.ts";
 * const compaction: SessionCompaction = { digest: "The user asked for X; tests pass.", coveredUntil: 12 };
 * if (compaction.coveredUntil !== 12) throw new Error("index");
 * ```
 */
export interface SessionCompaction {
  /** The digest text (redacted like every content string). */
  digest: string;
  /** A transcript message index. */
  coveredUntil: number;
}

/**
 * What {@linkcode SessionStore.create} needs.
 *
 * @example A named session
 * ```ts
 * import type { CreateSessionInit } from "./session_store.ts";
 * const init: CreateSessionInit = { id: "nightly", workspace: "/srv/ws", model: "m", baseUrl: "http://127.0.0.1:1/v1", title: "nightly check" };
 * if (init.id !== "nightly") throw new Error("id");
 * ```
 */
export interface CreateSessionInit {
  /** A name for the session (`--session <name>`); generated when absent. */
  id?: string;
  /** The workspace (absolute path). */
  workspace: string;
  /** The model name. */
  model: string;
  /** The base URL. */
  baseUrl: string;
  /** The title; normalised to its first line, trimmed, at most 80 characters. */
  title: string;
}

/**
 * One row of {@linkcode SessionStore.list}.
 *
 * @example List the sessions that could not be loaded
 * ```ts
 * import type { SessionSummary } from "./session_store.ts";
 * const rows: SessionSummary[] = [];
 * const broken = rows.filter((row) => row.problem !== undefined).map((row) => row.id);
 * if (broken.length !== 0) throw new Error("none");
 * ```
 */
export interface SessionSummary extends SessionMeta {
  /** ISO 8601 time of the last record (the creation time for a new session). */
  updatedAt: string;
  /** Messages in the journal (repair results included, torn tail excluded). */
  messageCount: number;
  /** Tool calls requested by the model over the whole journal. */
  toolCallCount: number;
  /** Size of the journal in bytes. */
  bytes: number;
  /** Whether a live odek process holds the session. */
  locked: boolean;
  /**
   * Set when the journal cannot be loaded (corrupt, too large): the reason and the fix. The meta
   * fields are then empty strings except `id`, and `updatedAt` is the file's modification time.
   */
  problem?: string;
}

/**
 * A session opened for writing. Holds the session's lock until {@linkcode OpenSession.close}
 * (which disposing it with `await using` calls).
 *
 * @example Append to a session and close it
 * ```ts
 * import { MemorySessionStore } from "./memory_session_store.ts";
 * import type { OpenSession } from "./session_store.ts";
 * await using session: OpenSession = await new MemorySessionStore().create({
 *   workspace: "/w", model: "m", baseUrl: "http://127.0.0.1:1/v1", title: "t",
 * });
 * await session.append({ role: "user", content: "hello" });
 * if (session.messages.length !== 1) throw new Error("appended");
 * ```
 */
export interface OpenSession extends AsyncDisposable {
  /** The meta record with every `meta_update` patch applied. */
  readonly meta: SessionMeta;
  /**
   * The transcript after repair (interrupted tool calls answered, orphan results dropped),
   * followed by every message appended since, as written (redacted).
   */
  readonly messages: readonly ChatMessage[];
  /**
   * The tool-call ids this open answered with a synthetic result: `interrupted` (it started, or
   * the journal cannot tell) or `not started` (the journal shows it never started).
   */
  readonly repairedToolCallIds: readonly string[];
  /**
   * The calls this open sends repaired because a strict provider would refuse them as journaled
   * (a duplicate id, arguments that are not a JSON object); see `repairToolCalls`.
   */
  readonly toolCallRepairs: readonly ToolCallRepair[];
  /** The damaged journal tail this open moved aside, if any. */
  readonly tornTail: TornTail | undefined;
  /**
   * The calls of the last assistant message still without a result, now (design §8.3): after a
   * load, those that never started; after a run that stopped at an approval prompt, its batch.
   * The next run asks or runs them, or answers them as not started.
   */
  readonly pendingToolCalls: readonly PendingToolCall[];
  /** Every tool-call id the journal holds (as sent, repaired ones included); new ids must differ. */
  readonly toolCallIds: ReadonlySet<string>;
  /** What the session has spent so far, over every run (from its `usage` records). */
  readonly spend: SessionSpend;
  /**
   * Record the tokens one model request spent (a `usage` record with the session's model;
   * written, and durable with the next fsynced record or `close()`).
   */
  recordUsage(usage: SessionUsage): Promise<void>;
  /** Record that these calls are being put to the approver (`approval_requested`, fsynced). */
  recordApprovalRequested(
    requests: readonly { callId: string; verdict: Verdict }[],
  ): Promise<void>;
  /** Record that a call is about to run (`tool_started`, fsynced). */
  recordToolStarted(callId: string): Promise<void>;
  /** The newest compaction digest (loaded, or recorded since), if any. */
  readonly compaction: SessionCompaction | undefined;
  /**
   * The checkpoints of the transcript as it is (those of turns a rewind took back are left out),
   * oldest first.
   */
  readonly checkpoints: readonly SessionCheckpoint[];
  /**
   * Record a checkpoint taken now (a `checkpoint` journal record; written, and durable with the
   * next fsynced record — a writing call's `tool_started` — or `close()`).
   */
  recordCheckpoint(checkpoint: { id: string; phase: "before" | "after" }): Promise<void>;
  /**
   * Record a rewind (a `rewind` journal record, fsynced). With `conversation`, the transcript
   * keeps its first `keep` messages from now on, and the checkpoints and compaction digest of the
   * messages taken back are dropped; the journal keeps everything.
   * @throws {RangeError} when `keep` is missing or larger than the transcript
   */
  recordRewind(rewind: RewindRecord): Promise<void>;
  /** Record a new compaction digest (a `compaction` journal record, redacted, fsynced). */
  recordCompaction(compaction: SessionCompaction): Promise<void>;
  /**
   * Append one message: redacted, written as one line before the promise resolves. An operator
   * message and a final answer (an assistant message without tool calls) are fsynced by then; an
   * assistant message with tool calls and a tool result are durable with the next fsynced record
   * (the `tool_started` written before the next call runs: design §5 and §8.3) or `close()`, so
   * a step costs one fsync. A crash of the process loses none of them; a crash of the machine
   * may lose the unsynced tail, which a resume treats as it treats a torn tail (a started call
   * without a result is answered as interrupted, never run again).
   * Concurrent calls are written in call order.
   * @throws {TypeError} when the message does not match the chat-message schema.
   */
  append(message: ChatMessage): Promise<void>;
  /** Record a change of model, base URL or workspace (redacted, fsynced). */
  updateMeta(patch: SessionMetaPatch): Promise<void>;
  /** Make every record durable (fsync), release the lock and the file. Idempotent. */
  close(): Promise<void>;
}

/**
 * Stores sessions. Every method that takes an id validates it first (see
 * {@linkcode validateSessionId}).
 *
 * Errors (all {@linkcode OdekError}): `USAGE` for an invalid or already used id,
 * `SESSION_NOT_FOUND`, `SESSION_LOCKED` when a live process holds the session, `SESSION_CORRUPT`
 * for a damaged journal (only a damaged last line is tolerated) or one over 64 MiB.
 *
 * @example Create, append, list, reopen (every type of this module in use)
 * ```ts
 * import { MemorySessionStore } from "./memory_session_store.ts";
 * import type {
 *   CreateSessionInit, OpenSession, SessionMeta, SessionMetaPatch, SessionStore, SessionSummary,
 * } from "./session_store.ts";
 * const store: SessionStore = new MemorySessionStore();
 * const init: CreateSessionInit = { workspace: "/w", model: "m", baseUrl: "http://x", title: "t" };
 * const session: OpenSession = await store.create(init);
 * await session.append({ role: "user", content: "hello" });
 * const patch: SessionMetaPatch = { model: "m2" };
 * await session.updateMeta(patch);
 * await session.close();
 * const [row]: SessionSummary[] = await store.list();
 * if (row.messageCount !== 1 || row.locked) throw new Error(JSON.stringify(row));
 * const again = await store.open(session.meta.id);
 * const meta: SessionMeta = again.meta;
 * if (again.messages.length !== 1 || meta.model !== "m2") throw new Error("lost a record");
 * await again.close();
 * ```
 */
export interface SessionStore {
  /** Create and lock a new session. Refuses an id that exists (`USAGE`). */
  create(init: CreateSessionInit): Promise<OpenSession>;
  /** Lock, load and repair a session for writing. */
  open(id: string): Promise<OpenSession>;
  /**
   * Load a session as written, without locking and without repairing (for show and export):
   * every message in file order (those a rewind took back included), the rewinds, and the
   * transcript as the next request would start from it with its checkpoints.
   */
  read(id: string): Promise<SessionRecords>;
  /** Every session, newest first by `updatedAt` (then by id, descending). */
  list(): Promise<SessionSummary[]>;
  /** The id of the newest session, if any. */
  latest(): Promise<string | undefined>;
  /** Delete a session and its torn-tail sidecar. Refuses a session a live process holds. */
  delete(id: string): Promise<void>;
}
