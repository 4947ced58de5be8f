/**
 * The start of a run's turn (private to `runtime/`): the next message (the operator's, or "go on"
 * after a partial summary), the stopped batch's calls answered when a new message replaces them,
 * and the host's pending meta patch written — all journaled before the run starts.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import { isPartialSummary } from "../loop/partial_summary.ts";
import { interruptedResult, notStartedResult } from "../session/repair_transcript.ts";
import type { OpenSession, PendingToolCall, SessionMetaPatch } from "../session/session_store.ts";

/** What a run starts from. */
export interface PreparedTurn {
  /** The transcript the run sends, the new message included. */
  messages: ChatMessage[];
  /** The stopped batch's calls the run runs or answers first (none when a message replaced them). */
  pending: readonly PendingToolCall[];
  /** The operator's message, trimmed, when there is one. */
  text: string | undefined;
}

/**
 * Journal what starts the next turn of `session`.
 *
 * @param session the host's open session
 * @param message the operator's message, if any
 * @param patch meta changes to write first (model, base URL, workspace)
 * @returns the transcript, the pending calls and the message
 * @throws {OdekError} `USAGE` when the session has nothing left to do and no message was given
 */
export async function prepareTurn(
  session: OpenSession,
  message: string | undefined,
  patch: SessionMetaPatch,
): Promise<PreparedTurn> {
  const messages = [...session.messages];
  const text = message?.trim();
  // A run stopped by its iteration budget ends with a partial summary: going on without a
  // message asks the model to continue.
  const next: ChatMessage | undefined = text
    ? { role: "user", content: text }
    : isPartialSummary(messages.at(-1))
    ? { role: "user", content: "[odek] Continue the task from where you stopped." }
    : undefined;
  const last = next ?? messages.at(-1);
  if (
    !last || (last.role === "assistant" && !last.tool_calls?.length) || last.role === "system"
  ) {
    throw new OdekError(
      "USAGE",
      `Session ${session.meta.id} has nothing left to do (its last turn is a final answer): give it a message, e.g. odek continue ${session.meta.id} "next step".`,
    );
  }
  if (Object.keys(patch).length > 0) await session.updateMeta(patch);
  let pending: readonly PendingToolCall[] = session.pendingToolCalls;
  if (next && pending.length > 0) {
    // A new message instead of the stopped batch: its calls are answered, not run.
    for (const { call, state } of pending) {
      const answer = state === "started"
        ? interruptedResult(call.id, call.function.name)
        : notStartedResult(
          call,
          state,
          `the run stopped before it was ${
            state === "awaiting_approval" ? "approved" : "started"
          }, and the operator went on with a new message`,
        );
      await session.append(answer);
      messages.push(answer);
    }
    pending = [];
  }
  if (next) {
    await session.append(next);
    messages.push(next);
  }
  return { messages, pending, text };
}
