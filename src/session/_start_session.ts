/**
 * Opening a session on a loaded journal (private to `session/`): finish an unterminated last
 * line, repair what a strict provider would refuse, answer the calls that cannot run again, and
 * journal what the repair did — appending, never rewriting.
 *
 * @module
 */
import type { ToolCall } from "../_util/chat_message.ts";
import {
  encodeRecord,
  type JournalOptions,
  JournalSession,
  type JournalSink,
} from "./_journal_session.ts";
import type { ParsedJournal } from "./_parse_journal.ts";
import { repairToolCalls } from "./repair_tool_calls.ts";
import { repairTranscript, type ToolCallState } from "./repair_transcript.ts";
import type { OpenSession, TornTail } from "./session_store.ts";

/** A loaded journal, or a new one (`meta`, no messages). */
export type StartingJournal =
  & Pick<ParsedJournal, "meta" | "messages" | "needsNewline">
  & Partial<
    Pick<
      ParsedJournal,
      "compaction" | "calls" | "trackedFrom" | "usage" | "repairs" | "checkpoints"
    >
  >;

/**
 * Start a session on a loaded journal:
 *
 * 1. tool calls a strict provider refuses are repaired for sending (`repairToolCalls`: duplicate
 *    ids re-minted, arguments that are not a JSON object sent as `{}`); new repairs are journaled
 *    in a `session_repaired` record that keeps the originals;
 * 2. calls without a result are answered by their state (design §8.3): a started call, or one
 *    the journal cannot vouch for, is `interrupted`; one that never started is `not started` —
 *    except in the last batch, where it stays pending for the next run (`pendingToolCalls`);
 *    the synthetic results are journaled with a `repair` record.
 *
 * Closes the sink if that fails.
 */
export async function startJournalSession(
  parsed: StartingJournal,
  sink: JournalSink,
  options: JournalOptions,
  extra: { tornTail?: TornTail } = {},
): Promise<OpenSession> {
  try {
    if (parsed.needsNewline) await sink.write("\n");
    const fixed = repairToolCalls(parsed.messages, parsed.repairs ?? []);
    const tracked = new WeakSet<ToolCall>();
    const from = parsed.trackedFrom ?? Infinity;
    fixed.messages.forEach((message, index) => {
      if (index < from || message.role !== "assistant") return;
      for (const call of message.tool_calls ?? []) tracked.add(call);
    });
    const calls = parsed.calls ?? new Map();
    const callState = (call: ToolCall): ToolCallState => {
      const record = calls.get(call.id);
      if (record?.started) return "started";
      if (!tracked.has(call)) return "untracked";
      return record?.verdict ? "awaiting_approval" : "not_started";
    };
    const { messages, repairedToolCallIds } = repairTranscript(fixed.messages, {
      callState,
      keepPending: true,
    });
    const at = options.now().toISOString();
    const lines: string[] = [];
    if (fixed.added.length > 0) {
      lines.push(encodeRecord({ t: "session_repaired", at, calls: fixed.added }, options.redact));
    }
    if (repairedToolCallIds.length > 0) {
      const repaired = new Set(repairedToolCallIds);
      for (const message of messages) {
        if (message.role === "tool" && repaired.has(message.tool_call_id)) {
          lines.push(encodeRecord({ t: "message", at, message }, options.redact));
        }
      }
      lines.push(
        encodeRecord({ t: "repair", at, toolCallIds: repairedToolCallIds }, options.redact),
      );
    }
    if (lines.length > 0) await sink.write(lines.join(""));
    const toolCallIds = new Set<string>();
    let toolCallsRequested = 0;
    for (const list of [parsed.messages, fixed.messages]) {
      for (const message of list) {
        if (message.role !== "assistant") continue;
        for (const call of message.tool_calls ?? []) toolCallIds.add(call.id);
      }
    }
    for (const message of parsed.messages) {
      if (message.role === "assistant") toolCallsRequested += message.tool_calls?.length ?? 0;
    }
    return new JournalSession(
      {
        meta: parsed.meta,
        messages,
        repaired: repairedToolCallIds,
        repairs: fixed.repairs,
        ...(extra.tornTail ? { tornTail: extra.tornTail } : {}),
        ...(parsed.compaction ? { compaction: { ...parsed.compaction } } : {}),
        checkpoints: [...(parsed.checkpoints ?? [])],
        calls,
        tracked,
        tracking: parsed.trackedFrom !== undefined,
        toolCallIds,
        toolCallsRequested,
        usage: structuredClone(parsed.usage ?? {}),
      },
      sink,
      options,
    );
  } catch (error) {
    await sink.close();
    throw error;
  }
}
