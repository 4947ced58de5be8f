/**
 * The catalogue entries of the tools that run in the core itself: `plan` and `clarify` (see
 * `src/loop/run_core_tool.ts`). They touch nothing outside the run, so each is one `read` part.
 *
 * @module
 */
import { z } from "zod";
import { toolEntry } from "./tool_entry.ts";

const stepId = z.string().regex(/^[^\s\[\]]{1,32}$/, "1-32 characters, no whitespace or brackets");

/** Arguments of `plan` (odek-go §4.3 verbs, plus acceptance checks). */
const PLAN_ARGS = z.strictObject({
  action: z.enum(["create", "update", "get"]),
  steps: z.array(z.strictObject({
    id: stepId,
    title: z.string().min(1).max(200),
    check: z.strictObject({
      tool: z.string().min(1).max(64).describe("The tool whose successful call proves the step"),
      args_include: z.string().min(1).max(200).optional().describe(
        "Text the proving call's arguments must contain",
      ),
    }).optional(),
  })).min(1).max(12).optional().describe('For "create": the steps'),
  updates: z.array(z.strictObject({
    id: stepId,
    status: z.enum(["pending", "in_progress", "done", "blocked"]).optional(),
    note: z.string().max(500).optional(),
  })).min(1).max(12).optional().describe('For "update": the changes, applied all or none'),
}).superRefine((args, ctx) => {
  if (args.action === "create" && !args.steps) {
    ctx.addIssue({ code: "custom", path: ["steps"], message: 'action "create" needs steps' });
  }
  if (args.action === "update" && !args.updates) {
    ctx.addIssue({ code: "custom", path: ["updates"], message: 'action "update" needs updates' });
  }
});

/** `plan` and `clarify`, in the order the model sees them. */
export const CORE_TOOLS = [
  toolEntry({
    name: "plan",
    category: "core",
    rule: { kind: "fixed", class: "read", detail: "updates the run's plan" },
    classWithoutGate: "read",
    description:
      'Keep a plan for this run. action "create" replaces the plan with steps (1-12; each may name a check: a tool whose successful call proves the step done, e.g. {"tool":"shell","args_include":"deno test"}); "update" changes statuses (pending, in_progress, done, blocked) and notes atomically; "get" shows it. A step with a check can be set done only after a successful call of that tool completed after the plan was created. The plan stays visible at the top of the conversation.',
    args: PLAN_ARGS,
  }),
  toolEntry({
    name: "clarify",
    category: "core",
    rule: { kind: "fixed", class: "read", detail: "asks the operator" },
    classWithoutGate: "read",
    description:
      "Ask the operator one question and wait for the answer. Use only when you cannot proceed safely without it; when nobody can answer (a non-interactive run) the call is denied and you should continue on your best judgement and say what you assumed.",
    args: z.strictObject({
      question: z.string().min(1).max(2000).describe("The question, self-contained"),
    }),
  }),
] as const;
