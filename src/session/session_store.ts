/**
 * The session seam (design §5): an append-only journal per session, with locking and resume
 * repair. The real store is {@linkcode FileSessionStore}; unit tests use
 * {@linkcode MemorySessionStore}, which behaves the same.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { RewindRecord } from "./journal_record.ts";

/** What a session records about itself (never the API key). */
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

/** The fields of {@linkcode SessionMeta} that change over a session's life (`odek continue` flags). */
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
 */
export interface SessionCompaction {
  /** The digest text (redacted like every content string). */
  digest: string;
  /** A transcript message index. */
  coveredUntil: number;
}

/** A checkpoint the journal records, where it stands in the transcript. */
export interface SessionCheckpoint {
  /** The checkpoint's id (a `CheckpointStore` id). */
  id: string;
  /** Taken before or after a step. */
  phase: "before" | "after";
  /** ISO 8601 time it was recorded. */
  at: string;
  /** How many transcript messages there were when it was taken. */
  messageIndex: number;
}

/** A rewind as `read()` returns it: the record, and how many messages were written before it. */
export interface SessionRewind {
  /** ISO 8601 time of the rewind. */
  at: string;
  /** Messages of `read().messages` written before the rewind. */
  afterMessage: number;
  /** What the rewind did. */
  record: RewindRecord;
}

/** A session as {@linkcode SessionStore.read} returns it. */
export interface SessionRecords {
  /** The meta record with every patch applied. */
  meta: SessionMeta;
  /** Every message record in file order. */
  messages: ChatMessage[];
  /** Every rewind, in order. */
  rewinds: SessionRewind[];
  /** The transcript: `messages` less what rewinds took back (not repaired). */
  transcript: ChatMessage[];
  /** The transcript's checkpoints, oldest first. */
  checkpoints: SessionCheckpoint[];
}

/** What {@linkcode SessionStore.create} needs. */
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

/** One row of {@linkcode SessionStore.list}. */
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
 */
export interface OpenSession extends AsyncDisposable {
  /** The meta record with every `meta_update` patch applied. */
  readonly meta: SessionMeta;
  /**
   * The transcript after repair (interrupted tool calls answered, orphan results dropped),
   * followed by every message appended since, as written (redacted).
   */
  readonly messages: readonly ChatMessage[];
  /** The tool-call ids this open answered with a synthetic "interrupted" result. */
  readonly repairedToolCallIds: readonly string[];
  /** The newest compaction digest (loaded, or recorded since), if any. */
  readonly compaction: SessionCompaction | undefined;
  /**
   * The checkpoints of the transcript as it is (those of turns a rewind took back are left out),
   * oldest first.
   */
  readonly checkpoints: readonly SessionCheckpoint[];
  /** Record a checkpoint taken now (a `checkpoint` journal record, fsynced). */
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
   * Append one message: redacted, written as one line and fsynced before the promise resolves.
   * Concurrent calls are written in call order.
   * @throws {TypeError} when the message does not match the chat-message schema.
   */
  append(message: ChatMessage): Promise<void>;
  /** Record a change of model, base URL or workspace (redacted, fsynced). */
  updateMeta(patch: SessionMetaPatch): Promise<void>;
  /** Release the lock and the file. Idempotent. */
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
