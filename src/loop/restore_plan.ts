/**
 * Resume a run's plan from its transcript: the newest `plan` result whose `plan_state:` line
 * parses and validates wins; unparseable ones are skipped (odek-go §4.3: "resumed from the
 * newest fully parseable plan message").
 *
 * @module
 */
import { z } from "zod";
import type { ChatMessage } from "../_util/chat_message.ts";
import { PlanState } from "./plan_state.ts";
import { PLAN_STATE_PREFIX } from "./run_core_tool.ts";

const SnapshotSchema = z.object({
  version: z.int().min(0),
  steps: z.array(z.object({
    id: z.string().min(1).max(32),
    title: z.string().max(200),
    status: z.enum(["pending", "in_progress", "done", "blocked"]),
    note: z.string().max(500).optional(),
    check: z.object({
      tool: z.string().min(1).max(64),
      argsInclude: z.string().max(200).optional(),
      declaredAt: z.int().min(0),
      satisfiedBy: z.string().optional(),
    }).optional(),
  })).max(12),
});

/**
 * The plan of a transcript, or a fresh one. Only successful results answering a `plan` call are
 * read, and only their last line, so neither another tool's output nor a refused `plan` call whose
 * error message echoes the model's text can plant a plan. Evidence does not carry over: a check still
 * open after a resume needs a new successful call.
 *
 * @example
 * ```ts
 * import { restorePlan } from "./restore_plan.ts";
 * const plan = restorePlan([{ role: "user", content: "hi" }]);
 * if (plan.version !== 0) throw new Error("expected an empty plan");
 * ```
 */
export function restorePlan(messages: readonly ChatMessage[]): PlanState {
  const planCallIds = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      if (call.function.name === "plan") planCallIds.add(call.id);
    }
  }
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== "tool" || !planCallIds.has(message.tool_call_id)) continue;
    // A successful plan result ends with its state line. A refusal can echo the model's text
    // (an unknown argument's name) and so hold a forged state line: never read one.
    if (message.content.startsWith("error (")) continue;
    const line = message.content.split("\n").at(-1);
    if (!line?.startsWith(PLAN_STATE_PREFIX)) continue;
    try {
      const parsed = SnapshotSchema.safeParse(JSON.parse(line.slice(PLAN_STATE_PREFIX.length)));
      if (parsed.success) return PlanState.restore(parsed.data);
    } catch {
      // Not JSON: an older result may still parse.
    }
  }
  return new PlanState();
}
