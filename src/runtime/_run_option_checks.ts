/**
 * Checks and clean-ups of `startRun()`'s options (private to `runtime/`).
 *
 * @module
 */
import type { RunBudgets } from "../loop/budget_checker.ts";
import { checkObject, checkString } from "./check_option.ts";
import type { StartRunOptions } from "./session_host_parts.ts";

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
