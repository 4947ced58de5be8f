/**
 * How a run of the runtime ended (design §8.4), and the operator messages of its failures.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { BudgetBreach } from "../loop/budget_checker.ts";
import type { RunOutcome as AgentOutcome } from "../loop/run_agent.ts";
import type { RunStats } from "../loop/run_stats.ts";

/**
 * How a run ended. The transcript is journaled in every case. Every variant carries the run's
 * counters and its wall-clock duration; the failures carry the `OdekError` whose message the
 * `run_failed` event shows (`BUDGET_EXCEEDED`, `INTERRUPTED`, or the fault itself).
 *
 * (`stalled`, design §8.4, is not produced yet: the stall detector only adds a hint. It joins
 * this union with the code that ends a run on a stall.)
 *
 * @example Turn an outcome into a process exit code
 * ```ts
 * import type { RunOutcome } from "./run_outcome.ts";
 * function exitCode(outcome: RunOutcome): number {
 *   switch (outcome.type) {
 *     case "completed":
 *       return 0;
 *     case "budget_exceeded":
 *       return 4;
 *     case "interrupted":
 *       return 130;
 *     case "failed":
 *       return 1;
 *   }
 * }
 * const stats = { iterations: 1, toolCalls: 0, inputTokens: 10, outputTokens: 2, startedAt: 0 };
 * if (exitCode({ type: "completed", text: "Done.", stats, durationMs: 3 }) !== 0) throw new Error("exit code");
 * ```
 */
export type RunOutcome =
  | { type: "completed"; text: string | null; stats: RunStats; durationMs: number }
  | {
    type: "budget_exceeded";
    breach: BudgetBreach;
    /** The model's summary when the iteration budget was spent (else `null`). */
    partialSummary: string | null;
    error: OdekError;
    stats: RunStats;
    durationMs: number;
  }
  | {
    type: "interrupted";
    /** What stopped it: `cancel(reason)`'s reason, or the caller's signal's (e.g. `SIGINT`). */
    reason: string;
    error: OdekError;
    stats: RunStats;
    durationMs: number;
  }
  | { type: "failed"; error: Error; stats: RunStats; durationMs: number };

/**
 * The runtime's outcome for the loop's.
 *
 * @param outcome what `runAgent` returned
 * @param context the session id (named in messages), what stopped an interrupted run, the
 *   iteration budget, and the duration
 * @returns the outcome with its error and duration
 *
 * @example
 * ```ts
 * import { runOutcomeOf } from "./run_outcome.ts";
 * import { newRunStats } from "../loop/run_stats.ts";
 * const outcome = runOutcomeOf({ type: "interrupted", stats: newRunStats(0) }, {
 *   sessionId: "s1", reason: "SIGINT", maxIterations: 90, durationMs: 5,
 * });
 * if (outcome.type !== "interrupted" || !outcome.error.message.startsWith("Interrupted by SIGINT.")) {
 *   throw new Error(JSON.stringify(outcome));
 * }
 * ```
 */
export function runOutcomeOf(
  outcome: AgentOutcome,
  context: { sessionId: string; reason: string; maxIterations: number; durationMs: number },
): RunOutcome {
  const { durationMs } = context;
  switch (outcome.type) {
    case "completed":
      return { ...outcome, durationMs };
    case "failed":
      return { ...outcome, durationMs };
    case "budget_exceeded":
      return {
        ...outcome,
        error: new OdekError(
          "BUDGET_EXCEEDED",
          budgetMessage(outcome.breach, context.maxIterations),
        ),
        durationMs,
      };
    case "interrupted":
      return {
        ...outcome,
        reason: context.reason,
        error: new OdekError(
          "INTERRUPTED",
          `Interrupted by ${context.reason}. The session is saved: resume it with odek continue ${context.sessionId}.`,
        ),
        durationMs,
      };
    default: {
      const unreachable: never = outcome;
      throw new TypeError(`Unknown outcome: ${JSON.stringify(unreachable)}`);
    }
  }
}

/** What the operator reads when a budget stops the run: the budget, what was used, the limit. */
function budgetMessage(breach: BudgetBreach, maxIterations: number): string {
  const { observed, limit } = breach;
  switch (breach.limit_name) {
    case "iterations":
      return `Stopped after ${observed} model turns (--max-iterations ${maxIterations}) without a final answer.`;
    case "runtime":
      return `Runtime budget spent: ${observed} s of ${limit} s (--max-runtime, budgets.maxRuntimeSeconds); what was running was stopped.`;
    case "tool_calls":
      return `Tool-call budget spent: ${observed} tool calls asked for, the limit is ${limit} (--max-tool-calls, budgets.maxToolCalls); calls beyond it did not run.`;
    case "input_tokens":
      return `Input-token budget spent: ${observed} of ${limit} tokens (--max-input-tokens, budgets.maxInputTokens).`;
    case "output_tokens":
      return `Output-token budget spent: ${observed} of ${limit} tokens (--max-output-tokens, budgets.maxOutputTokens).`;
    case "cost_usd":
      return `Cost budget spent: an estimated $${observed} of $${limit} (--max-cost-usd, budgets.maxCostUsd).`;
    default: {
      const unreachable: never = breach.limit_name;
      throw new TypeError(`Unknown budget: ${unreachable}`);
    }
  }
}
