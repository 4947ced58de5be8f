/**
 * Hard budgets of one run (odek-go `internal/budget`, `docs/EXTENSIONS.md` v2.x): wall-clock
 * runtime, tool calls, prompt and completion tokens, and estimated cost. Every limit is optional;
 * 0 or absent means off.
 *
 * @module
 */
import type { RunStats } from "./run_stats.ts";

/**
 * The limits of one run. All optional; 0 or absent = off.
 *
 * @example At most a dollar and a hundred tool calls
 * ```ts
 * import type { RunBudgets } from "./budget_checker.ts";
 * const budgets: RunBudgets = {
 *   maxCostUsd: 1,
 *   inputCostPerMillionUsd: 0.4,
 *   outputCostPerMillionUsd: 1.6,
 *   maxToolCalls: 100,
 * };
 * if (budgets.maxToolCalls !== 100) throw new Error("budgets");
 * ```
 */
export interface RunBudgets {
  /** Wall-clock milliseconds from the start of the run. */
  maxRuntimeMs?: number;
  /** Tool calls executed (refused calls count too). */
  maxToolCalls?: number;
  /** Prompt tokens summed over the run's model calls, as the provider reported them. */
  maxInputTokens?: number;
  /** Completion tokens summed over the run's model calls. */
  maxOutputTokens?: number;
  /** Estimated US dollars; enforced only when both prices below are set and above 0. */
  maxCostUsd?: number;
  /** US dollars per million prompt tokens of the run's model. */
  inputCostPerMillionUsd?: number;
  /** US dollars per million completion tokens of the run's model. */
  outputCostPerMillionUsd?: number;
}

/**
 * Which budget a run exhausted; the names of the `budget_exceeded` event.
 *
 * @example Name the budget that stopped a run
 * ```ts
 * import type { BudgetName } from "./budget_checker.ts";
 * const spent: BudgetName = "tool_calls";
 * if (spent !== "tool_calls") throw new Error("unreachable");
 * ```
 */
export type BudgetName =
  | "runtime"
  | "tool_calls"
  | "input_tokens"
  | "output_tokens"
  | "cost_usd"
  | "iterations";

/**
 * One exhausted budget. Units: `runtime` in seconds (ms precision), `cost_usd` in US dollars
 * (6 decimals), the others in counts.
 *
 * @example Say what was spent
 * ```ts
 * import type { BudgetBreach } from "./budget_checker.ts";
 * const breach: BudgetBreach = { limit_name: "iterations", observed: 90, limit: 90 };
 * const text = `${breach.limit_name}: ${breach.observed} of ${breach.limit}`;
 * if (text !== "iterations: 90 of 90") throw new Error(text);
 * ```
 */
export interface BudgetBreach {
  /** The budget that was spent. */
  limit_name: BudgetName;
  /** What the run used. */
  observed: number;
  /** The budget. */
  limit: number;
}

/**
 * Checks a run's counters against its budgets. Stateless apart from the limits: the counters
 * live in {@linkcode RunStats}. Thresholds follow odek-go: a usage or runtime budget is spent
 * when the observed value reaches the limit (`>=`); the tool-call budget when a batch would
 * take the count above it (`>`).
 *
 * @example A token budget
 * ```ts
 * import { BudgetChecker } from "./budget_checker.ts";
 * import { newRunStats } from "./run_stats.ts";
 * const checker = new BudgetChecker({ maxOutputTokens: 100 });
 * const stats = { ...newRunStats(0), outputTokens: 120 };
 * const breach = checker.usage(stats);
 * if (breach?.limit_name !== "output_tokens" || breach.observed !== 120) throw new Error("missed");
 * ```
 */
export class BudgetChecker {
  readonly #b: RunBudgets;

  /** @param budgets the limits; 0 or absent = off */
  constructor(budgets: RunBudgets = {}) {
    this.#b = budgets;
  }

  /** Whether the cost budget is enforced: a cap and both prices above 0 (odek-go rule). */
  get costEnforced(): boolean {
    const b = this.#b;
    return (b.maxCostUsd ?? 0) > 0 && (b.inputCostPerMillionUsd ?? 0) > 0 &&
      (b.outputCostPerMillionUsd ?? 0) > 0;
  }

  /** Estimated US dollars spent so far (0 without prices). */
  costUsd(stats: RunStats): number {
    return (stats.inputTokens * (this.#b.inputCostPerMillionUsd ?? 0) +
      stats.outputTokens * (this.#b.outputCostPerMillionUsd ?? 0)) / 1e6;
  }

  /**
   * The token or cost budget the counters have reached, if any (checked in that order).
   *
   * @param stats the run's counters
   */
  usage(stats: RunStats): BudgetBreach | undefined {
    const { maxInputTokens = 0, maxOutputTokens = 0, maxCostUsd = 0 } = this.#b;
    if (maxInputTokens > 0 && stats.inputTokens >= maxInputTokens) {
      return { limit_name: "input_tokens", observed: stats.inputTokens, limit: maxInputTokens };
    }
    if (maxOutputTokens > 0 && stats.outputTokens >= maxOutputTokens) {
      return { limit_name: "output_tokens", observed: stats.outputTokens, limit: maxOutputTokens };
    }
    if (this.costEnforced) {
      const cost = this.costUsd(stats);
      if (cost >= maxCostUsd) {
        return { limit_name: "cost_usd", observed: round(cost, 6), limit: maxCostUsd };
      }
    }
    return undefined;
  }

  /**
   * The runtime budget, if spent at `nowMs`.
   *
   * @param stats the run's counters (`startedAt`)
   * @param nowMs the current time on the same clock as `stats.startedAt`
   */
  runtime(stats: RunStats, nowMs: number): BudgetBreach | undefined {
    const max = this.#b.maxRuntimeMs ?? 0;
    const elapsed = nowMs - stats.startedAt;
    if (max <= 0 || elapsed < max) return undefined;
    return { limit_name: "runtime", observed: round(elapsed / 1000, 3), limit: max / 1000 };
  }

  /** Milliseconds left of the runtime budget at `nowMs` (never negative); `undefined` when off. */
  remainingMs(stats: RunStats, nowMs: number): number | undefined {
    const max = this.#b.maxRuntimeMs ?? 0;
    return max > 0 ? Math.max(0, max - (nowMs - stats.startedAt)) : undefined;
  }

  /**
   * How many of a batch of `requested` calls may run, and the breach when the batch would take
   * the count above the cap (`observed` is the would-be total, as in odek-go).
   */
  toolBatch(stats: RunStats, requested: number): { runnable: number; breach?: BudgetBreach } {
    const max = this.#b.maxToolCalls ?? 0;
    if (max <= 0) return { runnable: requested };
    const wouldBe = stats.toolCalls + requested;
    if (wouldBe <= max) return { runnable: requested };
    return {
      runnable: Math.max(0, max - stats.toolCalls),
      breach: { limit_name: "tool_calls", observed: wouldBe, limit: max },
    };
  }
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
