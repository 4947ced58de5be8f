/**
 * The records of a session journal: one JSON object per line, validated on load.
 *
 * @module
 */
import { z } from "zod";
import { ChatMessageSchema } from "../_util/chat_message.ts";
import { RiskClassSchema, type Verdict } from "../danger/verdict.ts";

/** The journal format version written in the meta record. */
export const JOURNAL_VERSION = 1;

/**
 * One line of a session journal (design §5):
 * - `meta` (always the first line): `{ t, v: 1, id, createdAt, workspace, model, baseUrl, title }`;
 * - `message`: `{ t, at, message }`, one transcript message;
 * - `meta_update`: `{ t, at, patch: { model?, baseUrl?, workspace? } }`;
 * - `repair`: `{ t, at, toolCallIds }`, written when a resume answered interrupted tool calls with
 *   synthetic results (those results are the `message` records just before it);
 * - `compaction`: `{ t, at, digest, coveredUntil }`, the rolling compaction digest of the
 *   context manager (docs/context.md): the turn groups of the transcript that start before
 *   message index `coveredUntil` are summarised by `digest`. The last one wins on load.
 * - `usage`: `{ t, at, model, inputTokens, outputTokens }`, the tokens one model request spent as
 *   the provider reported them (a turn, a partial summary, a compaction side call), so a resumed
 *   session knows what it spent (docs/budgets.md);
 * - `call_tracking`: `{ t, at }`, written before the first tool call it covers: every tool call of
 *   a later assistant message gets `approval_requested` before it is put to the approver and
 *   `tool_started` before it runs, so a call with neither never started (design §8.3);
 * - `approval_requested`: `{ t, at, callId, verdict }`, a call is being put to the approver;
 * - `tool_started`: `{ t, at, callId }`, a call is about to run;
 * - `session_repaired`: `{ t, at, calls }`, a load found tool calls a strict provider refuses and
 *   sends them repaired (never rewriting the journal): each entry names the call by its message
 *   record (`message`, 0-based among the journal's message records) and its `position`, with the
 *   id it is sent with (`id`) and what the journal holds (`originalId` when the id was a
 *   duplicate, `originalArguments` when the arguments were not a JSON object: they are sent as
 *   `{}`);
 * - `checkpoint`: `{ t, at, id, phase }`, a checkpoint of the workspace's files was taken
 *   before or after a step that can write it (its id names a commit of the shadow repository);
 * - `rewind`: `{ t, at, turn, conversation, keep?, files? }`, the operator went back to before
 *   turn `turn`: with `conversation`, the transcript the next request sends keeps only its
 *   first `keep` messages (nothing is deleted from the journal); with `files`, the workspace's
 *   files were restored to checkpoint `files.to` after the files as they were were saved in
 *   checkpoint `files.saved`.
 *
 * Times (`createdAt`, `at`) are ISO 8601 strings. Unknown extra fields are ignored.
 *
 * @example Parse a meta record and a message record
 * ```ts
 * import { JOURNAL_VERSION, type JournalRecord, JournalRecordSchema } from "./journal_record.ts";
 * const lines = [
 *   `{"t":"meta","v":${JOURNAL_VERSION},"id":"s1","createdAt":"2026-01-01T00:00:00.000Z",` +
 *   `"workspace":"/w","model":"m","baseUrl":"http://x","title":"hi"}`,
 *   `{"t":"message","at":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}`,
 * ];
 * const records: JournalRecord[] = lines.map((line) => JournalRecordSchema.parse(JSON.parse(line)));
 * if (records[1].t !== "message") throw new Error(records[1].t);
 * ```
 */
export const JournalRecordSchema = z.discriminatedUnion("t", [
  z.object({
    t: z.literal("meta"),
    v: z.literal(JOURNAL_VERSION),
    id: z.string().min(1),
    createdAt: z.string(),
    workspace: z.string(),
    model: z.string(),
    baseUrl: z.string(),
    title: z.string(),
  }),
  z.object({ t: z.literal("message"), at: z.string(), message: ChatMessageSchema }),
  z.object({
    t: z.literal("meta_update"),
    at: z.string(),
    patch: z.object({
      model: z.string().optional(),
      baseUrl: z.string().optional(),
      workspace: z.string().optional(),
    }),
  }),
  z.object({ t: z.literal("repair"), at: z.string(), toolCallIds: z.array(z.string()) }),
  z.object({
    t: z.literal("compaction"),
    at: z.string(),
    digest: z.string(),
    coveredUntil: z.int().min(0),
  }),
  z.object({
    t: z.literal("usage"),
    at: z.string(),
    model: z.string(),
    inputTokens: z.int().min(0),
    outputTokens: z.int().min(0),
  }),
  z.object({ t: z.literal("call_tracking"), at: z.string() }),
  z.object({
    t: z.literal("approval_requested"),
    at: z.string(),
    callId: z.string().min(1),
    verdict: z.object({
      parts: z.array(z.object({
        riskClass: RiskClassSchema,
        subject: z.string(),
        targets: z.array(z.string()),
        detail: z.string().optional(),
      })),
      decision: z.enum(["allow", "ask", "deny"]),
      reason: z.string(),
    }) satisfies z.ZodType<Verdict>,
  }),
  z.object({ t: z.literal("tool_started"), at: z.string(), callId: z.string().min(1) }),
  z.object({
    t: z.literal("session_repaired"),
    at: z.string(),
    calls: z.array(z.object({
      message: z.int().min(0),
      position: z.int().min(0),
      id: z.string().min(1),
      originalId: z.string().optional(),
      originalArguments: z.string().optional(),
    })),
  }),
  z.object({
    t: z.literal("checkpoint"),
    at: z.string(),
    id: z.string().regex(/^[0-9a-f]{40}$/),
    phase: z.enum(["before", "after"]),
  }),
  z.object({
    t: z.literal("rewind"),
    at: z.string(),
    turn: z.int().min(1),
    conversation: z.boolean(),
    keep: z.int().min(0).optional(),
    files: z.object({
      to: z.string(),
      saved: z.string().optional(),
      written: z.int().min(0),
      deleted: z.int().min(0),
      /** Paths not restored: changed outside odek and kept, protected, or skipped. */
      kept: z.array(z.string()),
    }).optional(),
  }),
]);

/** One line of a session journal; see {@linkcode JournalRecordSchema}. */
export type JournalRecord = z.infer<typeof JournalRecordSchema>;

/**
 * A `rewind` record's fields (without `t` and `at`); see {@linkcode JournalRecordSchema}.
 *
 * @example A conversation rewind
 * ```ts
 * import type { RewindRecord } from "./journal_record.ts";
 * const record: RewindRecord = { turn: 2, conversation: true, keep: 5 };
 * if (record.keep !== 5) throw new Error("keep");
 * ```
 */
export interface RewindRecord {
  /** The turn gone back to before (1-based). */
  turn: number;
  /** Whether the conversation went back. */
  conversation: boolean;
  /** With `conversation`: the transcript messages kept. */
  keep?: number;
  /** When files were restored. */
  files?: {
    /** The checkpoint restored. */
    to: string;
    /** The checkpoint of the files as they were just before. */
    saved?: string;
    /** Paths written back. */
    written: number;
    /** Paths deleted. */
    deleted: number;
    /** Paths not restored: changed outside odek and kept, protected, or skipped. */
    kept: string[];
  };
}

// The schema and the interface describe the same record.
const _sameRewind: RewindRecord = {} as Omit<Extract<JournalRecord, { t: "rewind" }>, "t" | "at">;
void _sameRewind;
