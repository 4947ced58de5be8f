/**
 * Validation of a run's limits at the edge, before anything runs or is journaled.
 *
 * @module
 */
import type { RunBudgets } from "./budget_checker.ts";

/** The largest delay a timer takes (2³¹−1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The limits {@linkcode checkRunLimits} checks. */
export interface RunLimits {
  /** Model turns: an integer ≥ 1. */
  maxIterations?: number;
  /** Tool calls of one reply that run at once: an integer from 1 to 64. */
  maxToolParallel?: number;
  /** Hard budgets: counts are non-negative integers, money non-negative, 0 = off. */
  budgets?: RunBudgets;
}

/**
 * Throw for a limit a run could not honour: `maxToolParallel: 0` would run no call at all, and a
 * `maxRuntimeMs` above {@linkcode MAX_TIMER_MS} would overflow the timer and end the run at once
 * with a breach that never happened.
 *
 * @param limits the limits as given
 * @param names how the caller names the options in messages: `limits` prefixes `maxIterations`
 *   and `maxToolParallel` (default none), `budgets` the budget keys (default `"budgets."`)
 * @throws {TypeError} when a limit is not a number; {@linkcode RangeError} when it is out of range
 *
 * @example
 * ```ts
 * import { checkRunLimits } from "./check_run_limits.ts";
 * checkRunLimits({ maxToolParallel: 4, budgets: { maxRuntimeMs: 60_000 } });
 * try {
 *   checkRunLimits({ maxToolParallel: 0 });
 *   throw new Error("accepted 0");
 * } catch (error) {
 *   if (!(error instanceof RangeError) || !error.message.includes("maxToolParallel")) throw error;
 * }
 * ```
 */
export function checkRunLimits(
  limits: RunLimits,
  names: { limits?: string; budgets?: string } = {},
): void {
  const prefix = names.limits ?? "";
  integer(`${prefix}maxIterations`, limits.maxIterations, 1, Number.MAX_SAFE_INTEGER);
  integer(`${prefix}maxToolParallel`, limits.maxToolParallel, 1, 64);
  const budgets = limits.budgets;
  if (budgets === undefined) return;
  const budgetPrefix = names.budgets ?? "budgets.";
  if (typeof budgets !== "object" || budgets === null) {
    throw new TypeError(
      `${budgetPrefix.replace(/\.$/, "")} must be an object, got ${typeof budgets}`,
    );
  }
  const name = (key: string) => `${budgetPrefix}${key}`;
  integer(name("maxRuntimeMs"), budgets.maxRuntimeMs, 0, MAX_TIMER_MS, " ms (about 24.8 days)");
  integer(name("maxToolCalls"), budgets.maxToolCalls, 0, Number.MAX_SAFE_INTEGER);
  integer(name("maxInputTokens"), budgets.maxInputTokens, 0, Number.MAX_SAFE_INTEGER);
  integer(name("maxOutputTokens"), budgets.maxOutputTokens, 0, Number.MAX_SAFE_INTEGER);
  for (const key of ["maxCostUsd", "inputCostPerMillionUsd", "outputCostPerMillionUsd"] as const) {
    const value = budgets[key];
    if (value === undefined) continue;
    if (typeof value !== "number") {
      throw new TypeError(`${name(key)} must be a number, got ${typeof value}`);
    }
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`${name(key)} must be a finite number ≥ 0, got ${value}`);
    }
  }
}

function integer(name: string, value: unknown, min: number, max: number, unit = ""): void {
  if (value === undefined) return;
  if (typeof value !== "number") {
    throw new TypeError(`${name} must be a number, got ${typeof value}`);
  }
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `${name} must be an integer from ${min} to ${max}${unit}, got ${value}`,
    );
  }
}
