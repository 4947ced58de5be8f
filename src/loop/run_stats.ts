/**
 * Counters of one run, shared by the loop's steps and reported in the final events and summary.
 *
 * @module
 */

/** Counters of one run. Tokens as the provider reported them. */
export interface RunStats {
  /** Model turns taken in this run. */
  iterations: number;
  /** Tool calls executed (or refused) in this run. */
  toolCalls: number;
  inputTokens: number;
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
