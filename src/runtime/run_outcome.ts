/**
 * How a run of the runtime ended (design §8.4), and the operator messages of its failures.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { BudgetBreach } from "../loop/budget_checker.ts";
import type { RunOutcome as AgentOutcome } from "../loop/run_agent.ts";
import type { RunStats } from "../loop/run_stats.ts";
import type { Stall } from "../loop/stall_detector.ts";

/**
 * How a run ended. The transcript is journaled in every case. Every variant carries the run's
 * counters and its wall-clock duration; the failures carry the `OdekError` whose message the
 * `run_failed` event shows (`BUDGET_EXCEEDED`, `STALLED`, `INTERRUPTED`, or the fault itself).
 *
 * A `failed` run of a new session whose model requests never succeeded (a configuration or
 * connection error before the first reply) carries `discarded`: nothing of the session is worth
 * keeping, so it is removed when its host closes (unless a later run on the host reaches the
 * model), and `discarded.messages` holds what the operator typed — the task first — for the
 * surface to give back.
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
 *     case "stalled":
 *       return 5;
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
    type: "stalled";
    /** The cycle that went on after the hint. */
    stall: Stall;
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
  | { type: "failed"; error: Error; stats: RunStats; durationMs: number; discarded?: Discarded };

/**
 * A new session that never reached the model: it is removed, and this is what was typed.
 *
 * @example Give the task back
 * ```ts
 * import type { Discarded } from "./run_outcome.ts";
 * const discarded: Discarded = { messages: ["fix the failing test"] };
 * if (discarded.messages[0] !== "fix the failing test") throw new Error("task");
 * ```
 */
export interface Discarded {
  /** The operator's messages, in order: the task, then any later ones. */
  messages: readonly string[];
}

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
  context: {
    sessionId: string;
    reason: string;
    maxIterations: number;
    durationMs: number;
    /** Set for a failure of a new session that never reached the model (it is removed). */
    discarded?: Discarded;
  },
): RunOutcome {
  const { durationMs, discarded } = context;
  const gone = discarded ? { discarded } : {};
  switch (outcome.type) {
    case "completed":
      return { ...outcome, durationMs };
    case "failed":
      return { ...outcome, durationMs, ...gone };
    case "budget_exceeded":
      return {
        ...outcome,
        error: new OdekError(
          "BUDGET_EXCEEDED",
          budgetMessage(outcome.breach, context.maxIterations),
        ),
        durationMs,
      };
    case "stalled":
      return {
        ...outcome,
        error: new OdekError("STALLED", stallMessage(outcome.stall, context.sessionId)),
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

/** What the operator reads when a stall stops the run. */
function stallMessage(stall: Stall, sessionId: string): string {
  const what = stall.names.length === 1
    ? `${stall.name} was called ${stall.repeats} times in a row with the same arguments and results`
    : `a cycle of ${stall.names.length} tool calls (${stall.name}) came ${stall.repeats} times in a row with the same arguments and results`;
  return `Stopped: the run was looping (${what}), and went on after odek's hint. The session is saved: continue it with a new instruction, e.g. odek continue ${sessionId} "try another approach: …".`;
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
      return `Tool-call budget spent: ${observed} tool calls asked for over the session, the limit is ${limit} (--max-tool-calls, budgets.maxToolCalls); calls beyond it did not run.`;
    case "input_tokens":
      return breach.prompt_tokens !== undefined
        ? `Input-token budget spent: the next request's prompt (about ${breach.prompt_tokens} tokens) is more than the ${
          limit - (observed - breach.prompt_tokens)
        } left of the session's ${limit} (--max-input-tokens, budgets.maxInputTokens), so it was not sent.`
        : `Input-token budget spent: ${observed} of ${limit} tokens over the session (--max-input-tokens, budgets.maxInputTokens).`;
    case "output_tokens":
      return `Output-token budget spent: ${observed} of ${limit} tokens over the session (--max-output-tokens, budgets.maxOutputTokens).`;
    case "cost_usd":
      return breach.prompt_tokens !== undefined
        ? `Cost budget spent: the next request's prompt (about ${breach.prompt_tokens} tokens) would take the session's estimated spend to $${observed}, over $${limit} (--max-cost-usd, budgets.maxCostUsd), so it was not sent.`
        : `Cost budget spent: an estimated $${observed} of $${limit} over the session (--max-cost-usd, budgets.maxCostUsd).`;
    default: {
      const unreachable: never = breach.limit_name;
      throw new TypeError(`Unknown budget: ${unreachable}`);
    }
  }
}
