/**
 * What the loop does about a stall (issue 14, case 5): the hint to the model and the event.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { RunContext } from "./run_context.ts";
import type { Stall } from "./stall_detector.ts";

/**
 * The `stall_detected` event's data of a stall.
 *
 * @example
 * ```ts
 * import { stallData } from "./stall_hint.ts";
 * const data = stallData({ action: "hint", names: ["glob"], name: "glob", repeats: 3 });
 * if (data.cycle_length !== 1) throw new Error("wrong length");
 * ```
 */
export function stallData(
  stall: Stall,
): { name: string; repeats: number; cycle_length: number; action: "hint" | "stop" } {
  return {
    name: stall.name,
    repeats: stall.repeats,
    cycle_length: stall.names.length,
    action: stall.action,
  };
}

/**
 * The corrective hint for a stall: a user message marked as odek's, journaled like any other,
 * saying what repeated and that the run stops if it goes on (unless `stopAfter` is 0); and the
 * `stall_detected` event.
 *
 * @param context the run
 * @param stall what repeated
 * @param stopAfter further repetitions that end the run (0: never)
 * @throws the journal's error
 *
 * @example
 * ```ts ignore
 * await addStallHint(context, stall, 3);
 * ```
 */
export async function addStallHint(
  context: RunContext,
  stall: Stall,
  stopAfter: number,
): Promise<void> {
  const what = stall.names.length === 1
    ? `You have called ${stall.name} with the same arguments ${stall.repeats} times in a row, ` +
      "and got the same result each time."
    : `Your last ${stall.names.length * stall.repeats} tool calls repeat one cycle of ` +
      `${stall.names.length} calls (${stall.name}) ${stall.repeats} times, with the same ` +
      "arguments and the same results each time.";
  const stop = stopAfter > 0 ? ` If it repeats ${stopAfter} more times, odek stops the run.` : "";
  const hint: ChatMessage = {
    role: "user",
    content: `[odek] ${what} Repeating it will not give a different result. Change the ` +
      "arguments, use another tool or approach, or, if you are done or stuck, answer with what " +
      `you have.${stop}`,
  };
  await context.journal.append(hint);
  context.messages.push(hint);
  context.emit("stall_detected", stallData(stall));
}
