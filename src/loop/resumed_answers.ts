/**
 * The answers of a resumed batch (design §8.3): the calls of the session's last assistant message
 * still without a result, and what the loop answers without running them.
 *
 * @module
 */
import type { ToolResult } from "../broker/tool_broker.ts";
import type { PendingToolCall } from "../session/session_store.ts";

/**
 * What a resumed batch's calls get without running, by position: a `started` call is answered
 * `interrupted` (it may have had effects; it never runs again); one that was
 * `awaiting_approval` is answered `not_started` unless it is asked again; the others run
 * (`undefined`).
 *
 * @param calls the pending calls, in call order
 * @param askAgain whether a call that was waiting for approval is put to the approver again
 * @returns one entry per call
 *
 * @example A call that waited for approval, with nobody to ask
 * ```ts
 * import { resumedAnswers } from "./resumed_answers.ts";
 * const call = { id: "c3", type: "function" as const, function: { name: "shell", arguments: "{}" } };
 * const verdict = { parts: [], decision: "ask" as const, reason: "network asks" };
 * const [answer] = resumedAnswers([{ call, state: "awaiting_approval", verdict }], false);
 * if (answer?.ok !== false || answer.error.kind !== "not_started") throw new Error("ran");
 * ```
 */
export function resumedAnswers(
  calls: readonly PendingToolCall[],
  askAgain: boolean,
): (ToolResult | undefined)[] {
  return calls.map((pending): ToolResult | undefined => {
    const { id, function: { name } } = pending.call;
    if (pending.state === "started") {
      return {
        ok: false,
        error: {
          kind: "interrupted",
          message: `Tool call ${id} (${name}) was interrupted before completion (odek stopped); ` +
            "it was not re-run and may have had partial effects. Check its effects before retrying.",
        },
      };
    }
    if (pending.state === "awaiting_approval" && !askAgain) {
      return {
        ok: false,
        error: {
          kind: "not_started",
          message: `Tool call ${id} (${name}) was not run: the run stopped before it was ` +
            "approved. It had no effects; call it again if it is still needed.",
        },
      };
    }
    return undefined;
  });
}
