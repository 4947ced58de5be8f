/**
 * What a session records besides its messages, as the stores hand it out: spend, pending tool
 * calls, a torn tail, checkpoints and rewinds, and a whole read session.
 *
 * @module
 */
import type { SessionMeta } from "./session_store.ts";
import type { ChatMessage, ToolCall } from "../_util/chat_message.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { RewindRecord } from "./journal_record.ts";

/**
 * Tokens one model request spent, as the provider reported them.
 *
 * @example Add up two requests
 * ```ts
 * import type { SessionUsage } from "./session_records.ts";
 * const spent: SessionUsage[] = [{ inputTokens: 1200, outputTokens: 80 }, { inputTokens: 1500, outputTokens: 40 }];
 * const total = spent.reduce((n, u) => n + u.inputTokens, 0);
 * if (total !== 2700) throw new Error(String(total));
 * ```
 */
export interface SessionUsage {
  /** Prompt tokens. */
  inputTokens: number;
  /** Completion tokens. */
  outputTokens: number;
}

/**
 * What a session has spent over its whole journal: every run, before and after each resume.
 *
 * @example What a session spent
 * ```ts
 * import type { SessionSpend } from "./session_records.ts";
 * const spend: SessionSpend = {
 *   inputTokens: 2700,
 *   outputTokens: 120,
 *   toolCalls: 3,
 *   byModel: { "gpt-4.1-mini": { inputTokens: 2700, outputTokens: 120 } },
 * };
 * if (spend.byModel["gpt-4.1-mini"].outputTokens !== spend.outputTokens) throw new Error("spend");
 * ```
 */
export interface SessionSpend extends SessionUsage {
  /**
   * Tool calls the model asked for, except those still pending (they are counted when they run
   * or are answered). Refused calls count, as in a run.
   */
  toolCalls: number;
  /** The tokens by the model the session used when they were spent (for the cost). */
  byModel: Record<string, SessionUsage>;
}

/**
 * A tool call of the session's last assistant message that has no result (design §8.3):
 * `awaiting_approval` — it was put to the approver and the run stopped before the answer (its
 * `verdict` is the one the operator saw); `not_started` — it was neither asked about nor
 * started; `started` — it started and the run stopped before its result was written (it may
 * have had effects: it is answered `interrupted`, never run again). A load answers started calls
 * itself, so `started` is seen only on a host whose run stopped without writing a result.
 *
 * @example A call that never started
 * ```ts
 * import type { PendingToolCall } from "./session_records.ts";
 * const pending: PendingToolCall = {
 *   call: { id: "c1", type: "function", function: { name: "shell", arguments: '{"command":"ls"}' } },
 *   state: "not_started",
 * };
 * if (pending.state !== "not_started") throw new Error("state");
 * ```
 */
export type PendingToolCall =
  | { call: ToolCall; state: "awaiting_approval"; verdict: Verdict }
  | { call: ToolCall; state: "not_started" | "started" };

/**
 * Bytes a load found after the last whole record of a journal and moved aside.
 *
 * @example Say where a damaged tail went
 * ```ts
 * import type { TornTail } from "./session_records.ts";
 * const torn: TornTail = { path: "/srv/odek/sessions/s1.jsonl.torn", bytes: 17 };
 * if (!torn.path.endsWith(".torn")) throw new Error("path");
 * ```
 */
export interface TornTail {
  /** Where they are now (`<id>.jsonl.torn` for the file store). */
  path: string;
  /** How many bytes were moved. */
  bytes: number;
}

/**
 * A checkpoint the journal records, where it stands in the transcript.
 *
 * @example The checkpoint before a step
 * ```ts
 * import type { SessionCheckpoint } from "./session_records.ts";
 * const checkpoint: SessionCheckpoint = { id: "c".repeat(40), phase: "before", at: "2026-01-01T00:00:00.000Z", messageIndex: 4 };
 * if (checkpoint.phase !== "before") throw new Error("phase");
 * ```
 */
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

/**
 * A rewind as `read()` returns it: the record, and how many messages were written before it.
 *
 * @example A rewind after four messages
 * ```ts
 * import type { SessionRewind } from "./session_records.ts";
 * const rewind: SessionRewind = {
 *   at: "2026-01-01T00:00:00.000Z",
 *   afterMessage: 4,
 *   record: { turn: 1, conversation: true, keep: 2 },
 * };
 * if (rewind.record.keep !== 2) throw new Error("keep");
 * ```
 */
export interface SessionRewind {
  /** ISO 8601 time of the rewind. */
  at: string;
  /** Messages of `read().messages` written before the rewind. */
  afterMessage: number;
  /** What the rewind did. */
  record: RewindRecord;
}

/**
 * A session as {@linkcode SessionStore.read} returns it.
 *
 * @example Read a session without its rewinds
 * ```ts
 * import type { SessionRecords } from "./session_records.ts";
 * const records: SessionRecords = {
 *   meta: { id: "s1", createdAt: "2026-01-01T00:00:00.000Z", workspace: "/srv/ws", model: "m", baseUrl: "http://127.0.0.1:1/v1", title: "t" },
 *   messages: [{ role: "user", content: "hi" }],
 *   rewinds: [],
 *   transcript: [{ role: "user", content: "hi" }],
 *   checkpoints: [],
 * };
 * if (records.transcript.length !== records.messages.length) throw new Error("transcript");
 * ```
 */
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
