/**
 * Hard budgets (odek-go `internal/budget`, `docs/EXTENSIONS.md` v2.x): wall-clock runtime (per
 * run), and tool calls, prompt and completion tokens and estimated cost (per session: what
 * earlier runs of the session spent counts, issue 14 case 6). Every limit is optional; 0 or
 * absent means off.
 *
 * @module
 */
import type { RunStats } from "./run_stats.ts";

/**
 * The limits of a run. All optional; 0 or absent = off.
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
  /** Tool calls executed over the session (refused calls count too). */
  maxToolCalls?: number;
  /** Prompt tokens summed over the session's model calls, as the provider reported them. */
  maxInputTokens?: number;
  /** Completion tokens summed over the session's model calls. */
  maxOutputTokens?: number;
  /**
   * Estimated US dollars over the session; enforced only when both prices below are set and
   * above 0.
   */
  maxCostUsd?: number;
  /** US dollars per million prompt tokens of the run's model. */
  inputCostPerMillionUsd?: number;
  /** US dollars per million completion tokens of the run's model. */
  outputCostPerMillionUsd?: number;
}

/**
 * What the session spent before this run (its earlier runs, before a resume): counted against
 * the token, cost and tool-call budgets together with the run's own counters.
 *
 * @example A session that already spent 30 cents
 * ```ts
 * import type { PriorSpend } from "./budget_checker.ts";
 * const prior: PriorSpend = { inputTokens: 12000, outputTokens: 800, toolCalls: 6, costUsd: 0.3 };
 * if (prior.costUsd !== 0.3) throw new Error("prior");
 * ```
 */
export interface PriorSpend {
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  /** Estimated US dollars (each earlier turn at its model's prices). */
  costUsd: number;
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
 * (6 decimals), the others in counts. `observed` is the session's total for the spend budgets
 * (the would-be total when a batch or a prompt was refused before it spent anything).
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
  /**
   * `input_tokens` and `cost_usd` only: the estimated prompt (in tokens) of a request that was
   * not sent because it alone was over what was left of the budget.
   */
  prompt_tokens?: number;
}

/**
 * Checks a run's counters, plus what the session spent before the run, against its budgets.
 * Stateless apart from the limits and that prior spend: the counters live in
 * {@linkcode RunStats}. Thresholds follow odek-go: a usage or runtime budget is spent when the
 * observed value reaches the limit (`>=`); the tool-call budget when a batch would take the
 * count above it (`>`).
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
  readonly #prior: PriorSpend;

  /**
   * @param budgets the limits; 0 or absent = off
   * @param prior what the session spent before this run @default nothing
   */
  constructor(budgets: RunBudgets = {}, prior?: Partial<PriorSpend>) {
    this.#b = budgets;
    this.#prior = { inputTokens: 0, outputTokens: 0, toolCalls: 0, costUsd: 0, ...prior };
  }

  /** What the session spent before this run. */
  get prior(): PriorSpend {
    return { ...this.#prior };
  }

  /** Whether the cost budget is enforced: a cap and both prices above 0 (odek-go rule). */
  get costEnforced(): boolean {
    const b = this.#b;
    return (b.maxCostUsd ?? 0) > 0 && (b.inputCostPerMillionUsd ?? 0) > 0 &&
      (b.outputCostPerMillionUsd ?? 0) > 0;
  }

  /** Estimated US dollars the session has spent so far, this run included (0 without prices). */
  costUsd(stats: RunStats): number {
    return this.#prior.costUsd + (stats.inputTokens * (this.#b.inputCostPerMillionUsd ?? 0) +
          stats.outputTokens * (this.#b.outputCostPerMillionUsd ?? 0)) / 1e6;
  }

  /**
   * The token or cost budget the session's counters have reached, if any (checked in that
   * order).
   *
   * @param stats the run's counters
   */
  usage(stats: RunStats): BudgetBreach | undefined {
    const { maxInputTokens = 0, maxOutputTokens = 0, maxCostUsd = 0 } = this.#b;
    const input = this.#prior.inputTokens + stats.inputTokens;
    const output = this.#prior.outputTokens + stats.outputTokens;
    if (maxInputTokens > 0 && input >= maxInputTokens) {
      return { limit_name: "input_tokens", observed: input, limit: maxInputTokens };
    }
    if (maxOutputTokens > 0 && output >= maxOutputTokens) {
      return { limit_name: "output_tokens", observed: output, limit: maxOutputTokens };
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
   * The input-token or cost budget, when a request whose prompt is estimated at `promptTokens`
   * would certainly cross it: the prompt alone is over what is left (so the request is not sent).
   *
   * @param stats the run's counters
   * @param promptTokens a lower estimate of the prompt's tokens (what is checked)
   * @param reportTokens the estimate to report in the breach @default `promptTokens`
   */
  prompt(
    stats: RunStats,
    promptTokens: number,
    reportTokens = promptTokens,
  ): BudgetBreach | undefined {
    const max = this.#b.maxInputTokens ?? 0;
    const spent = this.#prior.inputTokens + stats.inputTokens;
    if (max > 0 && promptTokens > max - spent) {
      return {
        limit_name: "input_tokens",
        observed: spent + reportTokens,
        limit: max,
        prompt_tokens: reportTokens,
      };
    }
    if (!this.costEnforced) return undefined;
    const price = (this.#b.inputCostPerMillionUsd ?? 0) / 1e6;
    const cost = this.costUsd(stats);
    const limit = this.#b.maxCostUsd ?? 0;
    if (promptTokens * price <= limit - cost) return undefined;
    return {
      limit_name: "cost_usd",
      observed: round(cost + reportTokens * price, 6),
      limit,
      prompt_tokens: reportTokens,
    };
  }

  /**
   * What is left of each spend budget that is on (never negative), for the operator.
   *
   * @param stats the run's counters
   */
  left(
    stats: RunStats,
  ): Partial<Record<"input_tokens" | "output_tokens" | "tool_calls" | "cost_usd", number>> {
    const b = this.#b;
    const out: Partial<
      Record<"input_tokens" | "output_tokens" | "tool_calls" | "cost_usd", number>
    > = {};
    const rest = (max: number | undefined, used: number) => Math.max(0, (max ?? 0) - used);
    if ((b.maxInputTokens ?? 0) > 0) {
      out.input_tokens = rest(b.maxInputTokens, this.#prior.inputTokens + stats.inputTokens);
    }
    if ((b.maxOutputTokens ?? 0) > 0) {
      out.output_tokens = rest(b.maxOutputTokens, this.#prior.outputTokens + stats.outputTokens);
    }
    if ((b.maxToolCalls ?? 0) > 0) {
      out.tool_calls = rest(b.maxToolCalls, this.#prior.toolCalls + stats.toolCalls);
    }
    if (this.costEnforced) out.cost_usd = round(rest(b.maxCostUsd, this.costUsd(stats)), 6);
    return out;
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

  /**
   * The runtime budget's breach once its timer has fired: spent even when the clock reads a
   * little under the limit (timer resolution; `startedAt + limit - startedAt` can come out just
   * under `limit` in floating point), with the limit as what was observed then.
   *
   * @param stats the run's counters (`startedAt`)
   * @param nowMs the current time on the same clock as `stats.startedAt`
   * @returns the breach (`undefined` only when no runtime budget is set)
   *
   * @example A timer that fired when the clock read just under the limit
   * ```ts
   * import { BudgetChecker } from "./budget_checker.ts";
   * import { newRunStats } from "./run_stats.ts";
   * const checker = new BudgetChecker({ maxRuntimeMs: 50 });
   * const breach = checker.runtimeSpent(newRunStats(4064.6602173500237), 4064.6602173500237 + 49.9);
   * if (breach?.limit !== 0.05 || breach.observed !== 0.05) throw new Error(JSON.stringify(breach));
   * ```
   */
  runtimeSpent(stats: RunStats, nowMs: number): BudgetBreach | undefined {
    const max = this.#b.maxRuntimeMs ?? 0;
    if (max <= 0) return undefined;
    const elapsed = Math.max(nowMs - stats.startedAt, max);
    return { limit_name: "runtime", observed: round(elapsed / 1000, 3), limit: max / 1000 };
  }

  /** Milliseconds left of the runtime budget at `nowMs` (never negative); `undefined` when off. */
  remainingMs(stats: RunStats, nowMs: number): number | undefined {
    const max = this.#b.maxRuntimeMs ?? 0;
    return max > 0 ? Math.max(0, max - (nowMs - stats.startedAt)) : undefined;
  }

  /**
   * How many of a batch of `requested` calls may run, and the breach when the batch would take
   * the session's count above the cap (`observed` is the would-be total, as in odek-go).
   */
  toolBatch(stats: RunStats, requested: number): { runnable: number; breach?: BudgetBreach } {
    const max = this.#b.maxToolCalls ?? 0;
    if (max <= 0) return { runnable: requested };
    const spent = this.#prior.toolCalls + stats.toolCalls;
    const wouldBe = spent + requested;
    if (wouldBe <= max) return { runnable: requested };
    return {
      runnable: Math.max(0, max - spent),
      breach: { limit_name: "tool_calls", observed: wouldBe, limit: max },
    };
  }
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
