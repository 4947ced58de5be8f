/**
 * Resume repair: make a loaded transcript a valid next request (design §5).
 *
 * @module
 */
import type {
  AssistantMessage,
  ChatMessage,
  ToolCall,
  ToolMessage,
} from "../_util/chat_message.ts";

/**
 * How far a tool call without a result got, by the journal's call records (design §8.3):
 * `started` (a `tool_started` record: it may have had effects), `awaiting_approval` (only an
 * `approval_requested` record), `not_started` (neither, in a journal that records both), or
 * `untracked` (neither, in a journal written before odek recorded them: it may have run).
 */
export type ToolCallState = "untracked" | "started" | "awaiting_approval" | "not_started";

/** Options for {@linkcode repairTranscript}. */
export interface RepairTranscriptOptions {
  /** The state of each call without a result. @default every such call is `untracked` */
  callState?: (call: ToolCall) => ToolCallState;
  /**
   * Leave the calls of the last batch (an assistant message followed only by its results) that
   * never started without a result, and list them in `pending`, instead of answering them: the
   * host runs or asks them again. @default false
   */
  keepPending?: boolean;
}

/** A call of the last batch that never started, left for the next run (see `keepPending`). */
export interface PendingCall {
  call: ToolCall;
  state: "awaiting_approval" | "not_started";
}

/** What {@linkcode repairTranscript} returns. */
export interface RepairTranscriptResult {
  /** The repaired transcript (a new array; the messages themselves are shared, not copied). */
  messages: ChatMessage[];
  /** The tool-call ids that received a synthetic result, in transcript order. */
  repairedToolCallIds: string[];
  /** The calls left pending (only with `keepPending`), in call order. */
  pending: PendingCall[];
}

/**
 * Repair a transcript so every assistant tool call has exactly one `tool` result:
 *
 * - Each `tool` message belongs to the nearest earlier assistant message that made a call with its
 *   `tool_call_id`, and is placed in that message's batch (the results that follow it) in call
 *   order: the journal holds results in completion order, the model needs them in call order.
 *   The first result for a call wins.
 * - A call with no result gets a synthetic one at its place in call order, in the tool-failure
 *   form the loop writes for every failure. A call that started (or may have: `untracked`) gets
 *   `error (interrupted): Tool call <id> (<name>) was interrupted before completion (odek
 *   stopped); it was not re-run and may have had partial effects. Check its effects before
 *   retrying.`; one that never started gets {@linkcode notStartedResult}'s text — unless it is in
 *   the last batch and `keepPending` is set: then it stays without a result, in `pending`.
 * - A result that answers no call (an orphan, or a second result for the same call) is dropped.
 *
 * Pure: the input is not modified. Repairing a repaired transcript changes nothing.
 *
 * @param messages the transcript as loaded from the journal
 * @param options the calls' states, and whether to keep the last batch's unstarted calls pending
 * @returns the repaired transcript, the ids that were answered synthetically, the pending calls
 *
 * @example An interrupted batch of two calls with one result
 * ```ts
 * import { repairTranscript, type RepairTranscriptResult } from "./repair_transcript.ts";
 * const call = (id: string) => ({ id, type: "function" as const, function: { name: "shell", arguments: "{}" } });
 * const { messages, repairedToolCallIds }: RepairTranscriptResult = repairTranscript([
 *   { role: "user", content: "go" },
 *   { role: "assistant", content: null, tool_calls: [call("c1"), call("c2")] },
 *   { role: "tool", tool_call_id: "c1", content: "done" },
 * ]);
 * if (repairedToolCallIds.join() !== "c2" || messages.length !== 4) throw new Error("not repaired");
 * ```
 */
export function repairTranscript(
  messages: readonly ChatMessage[],
  options: RepairTranscriptOptions = {},
): RepairTranscriptResult {
  const stateOf = options.callState ?? (() => "untracked" as const);
  const lastBatch = options.keepPending ? lastBatchIndex(messages) : -1;
  const pending: PendingCall[] = [];
  const owners = attributeResults(messages);
  const batches = new Map<number, ToolMessage[]>();
  for (const [resultIndex, ownerIndex] of owners) {
    const batch = batches.get(ownerIndex) ?? [];
    batch.push(messages[resultIndex] as ToolMessage);
    batches.set(ownerIndex, batch);
  }
  const repaired: ChatMessage[] = [];
  const repairedToolCallIds: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === "tool") return;
    repaired.push(message);
    if (message.role !== "assistant" || !message.tool_calls?.length) return;
    const results = new Map(
      (batches.get(index) ?? []).map((result) => [result.tool_call_id, result]),
    );
    const answered = new Set<string>();
    for (const call of message.tool_calls) {
      if (answered.has(call.id)) continue;
      answered.add(call.id);
      const result = results.get(call.id);
      if (result) {
        repaired.push(result);
        continue;
      }
      const state = stateOf(call);
      if (state === "awaiting_approval" || state === "not_started") {
        if (index === lastBatch) {
          pending.push({ call, state });
          continue;
        }
        repaired.push(notStartedResult(call, state));
      } else {
        repaired.push(interruptedResult(call.id, call.function.name));
      }
      repairedToolCallIds.push(call.id);
    }
  });
  return { messages: repaired, repairedToolCallIds, pending };
}

/**
 * The result of a call that never started (design §8.3): `error (not_started): Tool call <id>
 * (<name>) was not run: the run stopped before it was approved.` (or `… before it started.`),
 * with `reason` instead when given.
 *
 * @param call the call
 * @param state why it did not run
 * @param reason what stopped it instead of the default text, e.g. `the operator sent a new message`
 * @returns the tool message
 *
 * @example
 * ```ts
 * import { notStartedResult } from "./repair_transcript.ts";
 * const call = { id: "c3", type: "function" as const, function: { name: "shell", arguments: "{}" } };
 * const { content } = notStartedResult(call, "awaiting_approval");
 * if (!content.startsWith("error (not_started): Tool call c3 (shell) was not run: the run stopped before it was approved")) {
 *   throw new Error(content);
 * }
 * ```
 */
export function notStartedResult(
  call: ToolCall,
  state: "awaiting_approval" | "not_started",
  reason?: string,
): ToolMessage {
  const why = reason ??
    (state === "awaiting_approval"
      ? "the run stopped before it was approved"
      : "the run stopped before it started");
  return {
    role: "tool",
    tool_call_id: call.id,
    content: `error (not_started): Tool call ${call.id} (${call.function.name}) was not run: ` +
      `${why}. It had no effects; call it again if it is still needed.`,
  };
}

/** The index of the last assistant message with calls when only tool messages follow it, else -1. */
function lastBatchIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role === "tool") continue;
    return message.role === "assistant" && message.tool_calls?.length ? i : -1;
  }
  return -1;
}

/**
 * Map each kept tool result's index to the index of the assistant message it answers: the nearest
 * earlier assistant message with a call of that id, first result wins.
 */
function attributeResults(messages: readonly ChatMessage[]): Map<number, number> {
  const latestCaller = new Map<string, number>();
  const answered = new Set<string>();
  const owners = new Map<number, number>();
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      for (const call of (message as AssistantMessage).tool_calls ?? []) {
        latestCaller.set(call.id, index);
      }
      return;
    }
    if (message.role !== "tool") return;
    const owner = latestCaller.get(message.tool_call_id);
    if (owner === undefined) return;
    const key = `${owner}\u0000${message.tool_call_id}`;
    if (answered.has(key)) return;
    answered.add(key);
    owners.set(index, owner);
  });
  return owners;
}

/**
 * The synthetic result for a call that started and never completed (it may have had effects).
 *
 * @param id the call's id
 * @param name the tool's name
 * @returns the tool message (`error (interrupted): …`)
 *
 * @example
 * ```ts
 * import { interruptedResult } from "./repair_transcript.ts";
 * if (!interruptedResult("c1", "shell").content.includes("may have had partial effects")) {
 *   throw new Error("unexpected text");
 * }
 * ```
 */
export function interruptedResult(id: string, name: string): ToolMessage {
  const message = `Tool call ${id} (${name}) was interrupted before completion (odek stopped); ` +
    "it was not re-run and may have had partial effects. Check its effects before retrying.";
  return {
    role: "tool",
    tool_call_id: id,
    content: `error (interrupted): ${message}`,
  };
}
