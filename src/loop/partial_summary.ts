/**
 * The iteration budget's last word (odek-go §3.1 step 10, PR #123): when the model turns are
 * spent, one tool-less call asks the model for a summary of its progress, so a long run that
 * stops still tells the operator where it got to.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { ModelResponse } from "../llm/model.ts";
import type { RunContext } from "./run_context.ts";

/** The first line of a partial summary as it is stored in the transcript. */
export const PARTIAL_SUMMARY_MARKER = "[Iteration budget reached — partial summary]";

/** Options for {@linkcode requestPartialSummary}. */
export interface PartialSummaryOptions {
  /** The iteration budget that was spent, named in the request. */
  maxIterations: number;
  /** Give up on the summary after this many milliseconds. @default 60_000 */
  timeoutMs?: number;
}

/**
 * Ask the model, with no tools offered, for a summary of the run so far (one step of
 * `context.steps`). On success the request (a user message marked `[odek]`) and the answer
 * (starting with {@linkcode PARTIAL_SUMMARY_MARKER}) are recorded (journaled) and appended, usage
 * is counted, and a `partial_summary` event is emitted.
 *
 * @returns the summary text (redacted), or `null` when the call failed, timed out, was
 *   interrupted, answered with tool calls or with no text (nothing is journaled then)
 * @throws only when the journal cannot be written
 *
 * @example
 * ```ts ignore
 * const text = await requestPartialSummary(context, { maxIterations: 90 });
 * ```
 */
export async function requestPartialSummary(
  context: RunContext,
  options: PartialSummaryOptions,
): Promise<string | null> {
  const request: ChatMessage = {
    role: "user",
    content: `[odek] The iteration budget (${options.maxIterations} model turns) is spent, so ` +
      "this run stops now. Do not call tools. Summarise for the operator in a few short " +
      "paragraphs: what you did, what you found, what is left to do, and how to continue.",
  };
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const answerOf = (response: ModelResponse | null): ChatMessage[] => {
    const text = response?.message.content?.trim();
    if (!response || response.message.tool_calls?.length || !text) return [];
    return [request, {
      role: "assistant",
      content: `${PARTIAL_SUMMARY_MARKER}\n\n${context.redact(text)}`,
    }];
  };
  // One step: the call and, when it answered with text, the request and the answer recorded.
  const response = await context.steps.run<ModelResponse | null>({
    info: {
      type: "model_call",
      iteration: context.stats.iterations + 1,
      purpose: "partial_summary",
    },
    execute: () =>
      context.model.complete({
        messages: [...context.messages, request],
        tools: [],
        iteration: context.stats.iterations + 1,
        signal: AbortSignal.any([context.signal, timeout]),
      }).catch(() => null),
    records: answerOf,
  });
  if (response === null) return null;
  context.stats.inputTokens += response.usage.inputTokens;
  context.stats.outputTokens += response.usage.outputTokens;
  if (response.usage.inputTokens > 0 || response.usage.outputTokens > 0) {
    await context.journal.recordUsage?.(response.usage);
  }
  const recorded = answerOf(response);
  if (recorded.length === 0) return null;
  context.messages.push(...recorded);
  const redacted = context.redact(response.message.content!.trim());
  context.emit("partial_summary", { text: redacted });
  return redacted;
}

/**
 * Whether `message` is a partial summary written by {@linkcode requestPartialSummary}.
 *
 * @example
 * ```ts
 * import { isPartialSummary, PARTIAL_SUMMARY_MARKER } from "./partial_summary.ts";
 * if (!isPartialSummary({ role: "assistant", content: `${PARTIAL_SUMMARY_MARKER}\n\nhalf done` })) {
 *   throw new Error("not recognised");
 * }
 * ```
 */
export function isPartialSummary(message: ChatMessage | undefined): boolean {
  return message?.role === "assistant" && !message.tool_calls?.length &&
    (message.content ?? "").startsWith(PARTIAL_SUMMARY_MARKER);
}
