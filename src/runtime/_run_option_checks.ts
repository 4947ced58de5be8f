/**
 * Checks and clean-ups of `startRun()`'s options (private to `runtime/`).
 *
 * @module
 */
import type { RunBudgets } from "../loop/budget_checker.ts";
import { checkRunLimits } from "../loop/check_run_limits.ts";
import {
  checkBoolean,
  checkFunction,
  checkObject,
  checkSignal,
  checkString,
} from "./check_option.ts";
import type { StartRunOptions } from "./session_host_parts.ts";

/**
 * Check `startRun()`'s options, naming the bad one.
 *
 * @returns the run's limits and the budgets it overrides
 * @throws {TypeError} / {@linkcode RangeError} for a bad option
 */
export function checkStartRunOptions(
  options: StartRunOptions,
): { maxIterations?: number; maxToolParallel?: number; overrides: RunBudgets } {
  checkObject("options", options);
  checkString("message", options.message);
  checkSignal("signal", options.signal);
  checkFunction("stepRunner", options.stepRunner);
  checkBoolean("compact", options.compact);
  checkToolCall(options);
  checkObject("budgets", options.budgets, true);
  const { maxIterations, maxToolParallel, ...overrides } = options.budgets ?? {};
  checkRunLimits(
    { maxIterations, maxToolParallel, budgets: overrides },
    { limits: "budgets.", budgets: "budgets." },
  );
  return { maxIterations, maxToolParallel, overrides };
}

/** The budgets that are set (an `undefined` one does not override the configuration). */
export function definedOnly(budgets: RunBudgets): RunBudgets {
  return Object.fromEntries(
    Object.entries(budgets).filter(([, value]) => value !== undefined),
  ) as RunBudgets;
}

/** `toolCall` needs a name, object arguments and the user's `message`. */
export function checkToolCall(options: StartRunOptions): void {
  const call = options.toolCall;
  if (call === undefined) return;
  checkObject("toolCall", call);
  checkString("toolCall.name", call.name, { nonEmpty: true });
  checkString("toolCall.id", call.id, { nonEmpty: true });
  if (typeof call.args !== "object" || call.args === null || Array.isArray(call.args)) {
    throw new TypeError("toolCall.args must be an object");
  }
  if (options.message === undefined) {
    throw new TypeError("toolCall needs a message (what the caller asked, the user's turn)");
  }
}
