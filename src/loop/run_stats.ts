/**
 * Counters of one run, shared by the loop's steps and reported in the final events and summary.
 *
 * @module
 */

/**
 * Counters of one run. Tokens as the provider reported them.
 *
 * @example Report the tokens of a run
 * ```ts
 * import { newRunStats, type RunStats } from "./run_stats.ts";
 * const stats: RunStats = { ...newRunStats(0), inputTokens: 1200, outputTokens: 300 };
 * if (stats.inputTokens + stats.outputTokens !== 1500) throw new Error("tokens");
 * ```
 */
export interface RunStats {
  /** Model turns taken in this run. */
  iterations: number;
  /** Tool calls executed (or refused) in this run. */
  toolCalls: number;
  /** Prompt tokens, summed over the run's model calls. */
  inputTokens: number;
  /** Completion tokens, summed over the run's model calls. */
  outputTokens: number;
  /** `performance.now()`-style ms when the run started. */
  startedAt: number;
}

/**
 * Fresh counters.
 *
 * @example
 * ```ts
 * import { newRunStats } from "./run_stats.ts";
 * if (newRunStats(0).iterations !== 0) throw new Error("not zero");
 * ```
 */
export function newRunStats(startedAt: number): RunStats {
  return { iterations: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, startedAt };
}
