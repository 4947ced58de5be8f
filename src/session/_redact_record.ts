/**
 * Redaction of journal records before they are written (private to `session/`): every content
 * string, never ids, roles, tags or times.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { JournalRecord } from "./journal_record.ts";
import type { SessionMetaPatch } from "./session_store.ts";

/** Encode one record as a redacted JSON line (with its newline). */
export function encodeRecord(record: JournalRecord, redact: (text: string) => string): string {
  return `${JSON.stringify(redactRecord(record, redact))}\n`;
}

/** Redact the content-bearing strings of a record (never ids, roles, tags or times). */
export function redactRecord(
  record: JournalRecord,
  redact: (text: string) => string,
): JournalRecord {
  switch (record.t) {
    case "meta":
      return {
        ...record,
        workspace: redact(record.workspace),
        model: redact(record.model),
        baseUrl: redact(record.baseUrl),
        title: redact(record.title),
      };
    case "message":
      return { ...record, message: redactMessage(record.message, redact) };
    case "meta_update":
      return { ...record, patch: redactPatch(record.patch, redact) };
    case "repair":
    case "call_tracking":
    case "tool_started":
    case "checkpoint":
      return record;
    case "rewind":
      return record.files
        ? { ...record, files: { ...record.files, kept: record.files.kept.map(redact) } }
        : record;
    case "compaction":
      return { ...record, digest: redact(record.digest) };
    case "usage":
      return { ...record, model: redact(record.model) };
    case "approval_requested":
      return { ...record, verdict: redactVerdict(record.verdict, redact) };
    case "session_repaired":
      return {
        ...record,
        calls: record.calls.map((call) =>
          call.originalArguments === undefined
            ? call
            : { ...call, originalArguments: redact(call.originalArguments) }
        ),
      };
    default: {
      const unreachable: never = record;
      throw new TypeError(`Unknown journal record: ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A verdict with its subjects, targets, details and reason redacted. */
export function redactVerdict(verdict: Verdict, redact: (text: string) => string): Verdict {
  return {
    decision: verdict.decision,
    reason: redact(verdict.reason),
    parts: verdict.parts.map((part) => ({
      riskClass: part.riskClass,
      subject: redact(part.subject),
      targets: part.targets.map(redact),
      ...(part.detail === undefined ? {} : { detail: redact(part.detail) }),
    })),
  };
}

/** A message with every content string redacted. */
export function redactMessage(message: ChatMessage, redact: (text: string) => string): ChatMessage {
  switch (message.role) {
    case "system":
    case "user":
    case "tool":
      return { ...message, content: redact(message.content) };
    case "assistant":
      return {
        ...message,
        content: message.content === null ? null : redact(message.content),
        ...(message.reasoning_content === undefined
          ? {}
          : { reasoning_content: redact(message.reasoning_content) }),
        ...(message.tool_calls === undefined ? {} : {
          tool_calls: message.tool_calls.map((call) => ({
            ...call,
            function: {
              name: redact(call.function.name),
              arguments: redact(call.function.arguments),
            },
          })),
        }),
      };
    default: {
      const unreachable: never = message;
      throw new TypeError(`Unknown message: ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A meta patch with its values redacted. */
export function redactPatch(
  patch: SessionMetaPatch,
  redact: (text: string) => string,
): SessionMetaPatch {
  const out: SessionMetaPatch = {};
  for (const key of ["model", "baseUrl", "workspace"] as const) {
    const value = patch[key];
    if (value !== undefined) out[key] = redact(value);
  }
  return out;
}
