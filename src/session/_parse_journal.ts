/**
 * Load a journal's bytes into meta, transcript and the facts needed to keep appending to it.
 * Shared by both stores.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { Verdict } from "../danger/verdict.ts";
import { type JournalRecord, JournalRecordSchema } from "./journal_record.ts";
import type { ToolCallRepair } from "./repair_tool_calls.ts";
import type {
  SessionCheckpoint,
  SessionCompaction,
  SessionMeta,
  SessionRewind,
  SessionUsage,
} from "./session_store.ts";

/** What the journal's call records say about one tool-call id (design §8.3). */
export interface CallRecord {
  /** A `tool_started` record. */
  started: boolean;
  /** The verdict of its `approval_requested` record, if any. */
  verdict?: Verdict;
}

/** The largest journal odek loads, in bytes (64 MiB). */
export const MAX_JOURNAL_BYTES = 64 * 1024 * 1024;

/** A loaded journal. */
export interface ParsedJournal {
  /** The meta record with every patch applied. */
  meta: SessionMeta;
  /** The transcript: every message record in file order, less what rewinds took back (not repaired). */
  messages: ChatMessage[];
  /** Every message record, in file order, rewinds or not. */
  written: ChatMessage[];
  /** The checkpoints of the transcript (those of messages a rewind took back left out). */
  checkpoints: SessionCheckpoint[];
  /** Every rewind, in order. */
  rewinds: SessionRewind[];
  /** `at` of the last valid record, or the creation time. */
  updatedAt: string;
  /** Tool calls requested over the journal. */
  toolCallCount: number;
  /** Byte offset just after the last valid record. */
  validEnd: number;
  /** The damaged last line (and anything after it), when there is one. */
  torn?: Uint8Array;
  /** Whether the last valid record lacks its newline (one must be written before appending). */
  needsNewline: boolean;
  /** The last `compaction` record, if any. */
  compaction?: SessionCompaction;
  /** The call records by tool-call id. */
  calls: Map<string, CallRecord>;
  /**
   * The index (in `messages`) of the first message after the first `call_tracking` record:
   * calls of assistant messages from there on are tracked. `undefined`: none is.
   */
  trackedFrom?: number;
  /** Tokens spent, by the session's model at the time of each `usage` record. */
  usage: Record<string, SessionUsage>;
  /** The repairs of every `session_repaired` record, in order. */
  repairs: ToolCallRepair[];
}

/** Where a journal came from, for messages. */
export interface JournalSource {
  /** The session id the journal must carry. */
  id: string;
  /** The file path (or a description for the memory store). */
  label: string;
}

/**
 * Refuse a journal larger than {@linkcode MAX_JOURNAL_BYTES}.
 * @throws {OdekError} `SESSION_CORRUPT` with the size.
 */
export function checkJournalSize(bytes: number, source: JournalSource): void {
  if (bytes <= MAX_JOURNAL_BYTES) return;
  throw new OdekError(
    "SESSION_CORRUPT",
    `Session "${source.id}" is too large to load: ${source.label} is ${bytes} bytes, over the ` +
      `${MAX_JOURNAL_BYTES}-byte limit. Start a new session; export or delete this one with ` +
      `"odek sessions delete ${source.id}".`,
  );
}

/**
 * Parse a journal. A damaged (torn or garbage) last line is set aside in `torn`; a damaged line
 * anywhere else, a missing or misplaced meta record, or a meta id that differs from the session id
 * throws.
 * @throws {OdekError} `SESSION_CORRUPT` naming the file and line, and what to do.
 */
export function parseJournal(bytes: Uint8Array, source: JournalSource): ParsedJournal {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const lines = splitLines(bytes);
  let last = lines.length - 1;
  while (last >= 0 && isBlank(bytes, lines[last])) last--;
  let meta: SessionMeta | undefined;
  let messages: ChatMessage[] = [];
  const written: ChatMessage[] = [];
  let checkpoints: SessionCheckpoint[] = [];
  const rewinds: SessionRewind[] = [];
  /** Every compaction still standing (a rewind drops those that covered what it took back). */
  let compactions: SessionCompaction[] = [];
  let updatedAt = "";
  let toolCallCount = 0;
  let validEnd = 0;
  let needsNewline = false;
  const calls = new Map<string, CallRecord>();
  let trackedFrom: number | undefined;
  const usage: Record<string, SessionUsage> = {};
  const repairs: ToolCallRepair[] = [];
  const call = (id: string): CallRecord => {
    let found = calls.get(id);
    if (!found) calls.set(id, found = { started: false });
    return found;
  };
  for (let index = 0; index <= last; index++) {
    const line = lines[index];
    if (isBlank(bytes, line)) continue;
    const parsed = parseLine(decoder, bytes.subarray(line.start, line.end));
    if (!parsed.ok) {
      if (index === last) return finish(bytes.subarray(line.start));
      throw corrupt(source, index + 1, parsed.reason);
    }
    const record = parsed.record;
    if ((meta === undefined) !== (record.t === "meta")) {
      throw corrupt(
        source,
        index + 1,
        meta ? "a second meta record" : "the first record is not the meta record",
      );
    }
    switch (record.t) {
      case "meta": {
        if (record.id !== source.id) {
          throw corrupt(source, index + 1, `the meta record names session "${record.id}"`);
        }
        const { t: _t, v: _v, ...fields } = record;
        meta = fields;
        updatedAt = record.createdAt;
        break;
      }
      case "message":
        messages.push(record.message);
        written.push(record.message);
        if (record.message.role === "assistant") {
          toolCallCount += record.message.tool_calls?.length ?? 0;
        }
        updatedAt = record.at;
        break;
      case "meta_update":
        meta = { ...(meta as SessionMeta), ...definedOnly(record.patch) };
        updatedAt = record.at;
        break;
      case "repair":
        updatedAt = record.at;
        break;
      case "compaction":
        compactions.push({ digest: record.digest, coveredUntil: record.coveredUntil });
        updatedAt = record.at;
        break;
      case "usage": {
        const spent = usage[record.model] ??= { inputTokens: 0, outputTokens: 0 };
        spent.inputTokens += record.inputTokens;
        spent.outputTokens += record.outputTokens;
        updatedAt = record.at;
        break;
      }
      case "call_tracking":
        trackedFrom ??= messages.length;
        updatedAt = record.at;
        break;
      case "approval_requested":
        call(record.callId).verdict = record.verdict;
        updatedAt = record.at;
        break;
      case "tool_started":
        call(record.callId).started = true;
        updatedAt = record.at;
        break;
      case "session_repaired":
        repairs.push(...record.calls);
        updatedAt = record.at;
        break;
      case "checkpoint":
        checkpoints.push({
          id: record.id,
          phase: record.phase,
          at: record.at,
          messageIndex: messages.length,
        });
        updatedAt = record.at;
        break;
      case "rewind": {
        const { t: _t, at, ...fields } = record;
        rewinds.push({ at, afterMessage: written.length, record: fields });
        if (record.conversation) {
          const keep = Math.min(record.keep ?? messages.length, messages.length);
          messages = messages.slice(0, keep);
          checkpoints = checkpoints.filter((c) => c.messageIndex <= keep);
          compactions = compactions.filter((c) => c.coveredUntil <= keep);
          // What is appended after the rewind is written by a tracking writer too.
          if (trackedFrom !== undefined && trackedFrom > keep) trackedFrom = keep;
        }
        updatedAt = at;
        break;
      }
      default: {
        const unreachable: never = record;
        throw new TypeError(`Unknown journal record: ${JSON.stringify(unreachable)}`);
      }
    }
    validEnd = line.next;
    needsNewline = line.next === line.end;
  }
  return finish(undefined);

  function finish(torn: Uint8Array | undefined): ParsedJournal {
    if (!meta) {
      throw new OdekError(
        "SESSION_CORRUPT",
        `Session "${source.id}" cannot be loaded: ${source.label} has no valid meta record (it is ` +
          `empty or its only line is damaged). Delete it with "odek sessions delete ${source.id}".`,
      );
    }
    const compaction = compactions.at(-1);
    return {
      meta,
      messages,
      written,
      checkpoints,
      rewinds,
      updatedAt,
      toolCallCount,
      validEnd,
      torn,
      needsNewline,
      ...(compaction ? { compaction } : {}),
      calls,
      ...(trackedFrom !== undefined ? { trackedFrom } : {}),
      usage,
      repairs,
    };
  }
}

/** A line's byte range: `end` excludes the newline, `next` is the offset after it. */
interface LineRange {
  start: number;
  end: number;
  next: number;
}

function splitLines(bytes: Uint8Array): LineRange[] {
  const lines: LineRange[] = [];
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    const next = newline === -1 ? end : newline + 1;
    lines.push({ start, end, next });
    start = next;
  }
  return lines;
}

function isBlank(bytes: Uint8Array, line: LineRange): boolean {
  for (let i = line.start; i < line.end; i++) {
    const byte = bytes[i];
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}

type LineResult = { ok: true; record: JournalRecord } | { ok: false; reason: string };

function parseLine(decoder: TextDecoder, line: Uint8Array): LineResult {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(line));
  } catch (error) {
    return { ok: false, reason: error instanceof TypeError ? "invalid UTF-8" : "invalid JSON" };
  }
  const result = JournalRecordSchema.safeParse(value);
  if (result.success) return { ok: true, record: result.data };
  const issue = result.error.issues[0];
  return { ok: false, reason: `${issue.path.join(".") || "record"}: ${issue.message}` };
}

function corrupt(source: JournalSource, line: number, reason: string): OdekError {
  return new OdekError(
    "SESSION_CORRUPT",
    `Session "${source.id}" cannot be loaded: line ${line} of ${source.label} is not a valid ` +
      `journal record (${reason}). Only a damaged last line is skipped automatically. Fix or ` +
      `remove line ${line} (keep a copy of the file first), or delete the session with ` +
      `"odek sessions delete ${source.id}".`,
  );
}

function definedOnly<T extends Record<string, string | undefined>>(patch: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(patch).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}
