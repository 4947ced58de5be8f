/**
 * Put the rendered plan into what is sent to the model, in the protected head.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";

/** Marks the plan message, so that it can be recognised (and never trimmed). */
export const PLAN_MESSAGE_PREFIX = "# Plan\n";

/**
 * `messages` with a system message holding `plan` inserted where the head ends (before the first
 * assistant message, else at the end). The transcript itself is not changed: the plan is
 * re-rendered for every request, so it always shows the current state.
 *
 * @param plan the rendered plan; `undefined` returns `messages` unchanged
 *
 * @example
 * ```ts
 * import { withPlan } from "./with_plan.ts";
 * const sent = withPlan([{ role: "system", content: "s" }, { role: "user", content: "t" }], "[Current plan: v1]");
 * if (sent[2].role !== "system" || !sent[2].content.includes("v1")) throw new Error("plan missing");
 * ```
 */
export function withPlan(
  messages: readonly ChatMessage[],
  plan: string | undefined,
): ChatMessage[] {
  if (plan === undefined) return [...messages];
  const at = messages.findIndex((m) => m.role === "assistant");
  const end = at < 0 ? messages.length : at;
  return [
    ...messages.slice(0, end),
    { role: "system", content: `${PLAN_MESSAGE_PREFIX}${plan}` },
    ...messages.slice(end),
  ];
}
