/**
 * Resume repair: make a loaded transcript a valid next request (design §5).
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolMessage } from "../_util/chat_message.ts";

/** What {@linkcode repairTranscript} returns. */
export interface RepairTranscriptResult {
  /** The repaired transcript (a new array; the messages themselves are shared, not copied). */
  messages: ChatMessage[];
  /** The tool-call ids that received a synthetic "interrupted" result, in transcript order. */
  repairedToolCallIds: string[];
}

/**
 * Repair a transcript so every assistant tool call has exactly one `tool` result:
 *
 * - Each `tool` message belongs to the nearest earlier assistant message that made a call with its
 *   `tool_call_id`, and is placed in that message's batch (the results that follow it) in call
 *   order: the journal holds results in completion order, the model needs them in call order.
 *   The first result for a call wins.
 * - A call with no result gets a synthetic one at its place in call order. Its content is the
 *   tool-failure text the loop writes for every failure: `error (interrupted): Tool call <id>
 *   (<name>) was interrupted before completion (odek stopped); it was not re-run and may have had
 *   partial effects. Check its effects before retrying.`
 * - A result that answers no call (an orphan, or a second result for the same call) is dropped.
 *
 * Pure: the input is not modified. Repairing a repaired transcript changes nothing.
 *
 * @param messages the transcript as loaded from the journal
 * @returns the repaired transcript and the ids that were answered synthetically
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
export function repairTranscript(messages: readonly ChatMessage[]): RepairTranscriptResult {
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
      } else {
        repaired.push(interruptedResult(call.id, call.function.name));
        repairedToolCallIds.push(call.id);
      }
    }
  });
  return { messages: repaired, repairedToolCallIds };
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

/** The synthetic result for a call that never completed. */
function interruptedResult(id: string, name: string): ToolMessage {
  const message = `Tool call ${id} (${name}) was interrupted before completion (odek stopped); ` +
    "it was not re-run and may have had partial effects. Check its effects before retrying.";
  return {
    role: "tool",
    tool_call_id: id,
    content: `error (interrupted): ${message}`,
  };
}
