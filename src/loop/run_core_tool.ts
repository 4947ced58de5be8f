/**
 * The tools that run in the core rather than in a sandboxed child: `plan` and `clarify`. They
 * touch nothing outside the run (no files, no network), so they need no child and no scope.
 *
 * @module
 */
import type { ToolInvocation, ToolResult } from "../broker/tool_broker.ts";
import { PlanRefusal, type PlanStepStatus } from "./plan_state.ts";
import type { RunContext } from "./run_context.ts";

/** Prefix of the line of a `plan` result that carries the plan as JSON, for resuming. */
export const PLAN_STATE_PREFIX = "plan_state: ";

/**
 * Run a core tool call. Refusals (a `done` step without evidence, an unknown step) and
 * unanswered questions are results, never thrown.
 *
 * @returns the tool result; for `plan` the rendered plan and a `plan_state: {json}` line
 * @throws the run's abort reason when the signal aborts while `clarify` waits
 *
 * @example
 * ```ts ignore
 * const result = await runCoreTool(context, { id: "c1", name: "plan", args: { action: "get" } });
 * ```
 */
export async function runCoreTool(
  context: RunContext,
  invocation: ToolInvocation,
): Promise<ToolResult> {
  switch (invocation.name) {
    case "plan":
      return runPlan(context, invocation.args);
    case "clarify": {
      const question = context.redact(String(invocation.args.question));
      if (!context.clarifier) {
        return denied(
          "Nobody can answer in this run. Continue on your best judgement and state the assumption you made.",
        );
      }
      const answer = await context.clarifier.ask(question, context.signal);
      return answer.answered
        ? { ok: true, output: `The operator answered: ${answer.answer}` }
        : denied(answer.reason);
    }
    default:
      return {
        ok: false,
        error: { kind: "unknown_tool", message: `${invocation.name} is not a core tool.` },
      };
  }
}

interface PlanArgs {
  action: "create" | "update" | "get";
  steps?: { id: string; title: string; check?: { tool: string; args_include?: string } }[];
  updates?: { id: string; status?: PlanStepStatus; note?: string }[];
}

function runPlan(context: RunContext, raw: Record<string, unknown>): ToolResult {
  const args = raw as unknown as PlanArgs;
  const plan = context.plan;
  try {
    if (args.action === "create") {
      plan.create(args.steps!.map((s) => ({
        id: s.id,
        title: s.title,
        ...(s.check
          ? {
            check: {
              tool: s.check.tool,
              ...(s.check.args_include ? { argsInclude: s.check.args_include } : {}),
            },
          }
          : {}),
      })));
    } else if (args.action === "update") {
      plan.update(args.updates!);
    }
  } catch (error) {
    if (error instanceof PlanRefusal) {
      return { ok: false, error: { kind: "invalid_arguments", message: error.message } };
    }
    throw error;
  }
  if (args.action !== "get") {
    const snapshot = plan.snapshot();
    const steps = snapshot.steps.length;
    context.emit(args.action === "create" ? "plan_created" : "plan_updated", {
      steps,
      done: snapshot.steps.filter((s) => s.status === "done").length,
      version: snapshot.version,
    });
  }
  const rendered = plan.render() ?? 'There is no plan yet: call plan with action "create".';
  return {
    ok: true,
    output: `${rendered}\n${PLAN_STATE_PREFIX}${JSON.stringify(plan.snapshot())}`,
  };
}

function denied(message: string): ToolResult {
  return { ok: false, error: { kind: "denied", message } };
}
