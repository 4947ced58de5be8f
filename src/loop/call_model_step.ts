/**
 * The `call_model` step: ask the model for the next turn, persist the assistant message before
 * any of its tool calls runs, and decide the next step.
 *
 * @module
 */
import type { AssistantMessage } from "../_util/chat_message.ts";
import { StreamRedactor } from "../_util/stream_redactor.ts";
import type { ModelResponse } from "../llm/model.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import { isContextLengthError } from "./is_context_length_error.ts";
import type { RunContext } from "./run_context.ts";
import { withPlan } from "./with_plan.ts";

/** What follows a model turn. */
export type AfterModelStep =
  /** `outputCut`: the reply ended at the output limit (`finish_reason: "length"`). */
  | { type: "run_tools"; message: AssistantMessage; outputCut?: true }
  | { type: "final_output"; text: string | null };

/**
 * Run one model turn.
 *
 * The turn is one step of `context.steps`: the assistant message (with its tool calls) is recorded
 * (by default appended to the journal and fsynced) before the step returns, so a crash while the
 * tools run leaves evidence of every call (design §5).
 *
 * What is sent comes from `context.contextManager` when there is one (trimmed near the window);
 * a context-length refusal is retried once after its survival trim.
 *
 * @throws whatever the model throws (`OdekError` codes `MODEL_*`, `CONTEXT_LENGTH_EXCEEDED` when
 *   the retry is refused too, `CASSETTE_MISMATCH`, or an `AbortError`); the transcript is
 *   unchanged in that case.
 *
 * @example A scripted model that answers with text
 * ```ts ignore
 * const next = await callModelStep(context);
 * ```
 */
export async function callModelStep(context: RunContext): Promise<AfterModelStep> {
  context.stats.iterations += 1;
  // Streamed text is redacted across delta boundaries before anyone sees it.
  const text = new StreamRedactor(context.redact);
  const reasoning = new StreamRedactor(context.redact);
  const release = (type: "text_delta" | "reasoning_delta", piece: string) => {
    if (piece !== "") context.emit(type, { text: piece });
  };
  // While the model thinks, the broker may warm up what the next tool call needs. A timer lets the
  // request leave first: spawning blocks the thread.
  const warmUp = setTimeout(() => context.broker.prepare?.(), 0);
  const complete = (messages: ChatMessage[]) =>
    context.model.complete(
      {
        messages: withPlan(messages, context.plan.render()),
        tools: context.toolSpecs,
        iteration: context.stats.iterations,
        signal: context.signal,
        // Held-back text of the failed attempt is released before the notice; the journal only
        // ever gets the finished turn.
        onRetry: (retry) => {
          release("reasoning_delta", reasoning.flush());
          release("text_delta", text.flush());
          context.emit("model_retry", {
            attempt: retry.attempt,
            max_attempts: retry.maxAttempts,
            wait_ms: retry.waitMs,
            reason: retry.reason,
            ...(retry.status === undefined ? {} : { status: retry.status }),
          });
        },
      },
      (delta) => {
        if (delta.type === "text") release("text_delta", text.push(delta.text));
        else if (delta.type === "reasoning") release("reasoning_delta", reasoning.push(delta.text));
      },
    );
  // Context management (docs/context.md): only what is sent is trimmed, never the transcript.
  const manager = context.contextManager;
  // One step: the whole turn (a survival retry included); only the finished turn is recorded.
  const response: ModelResponse = await context.steps.run<ModelResponse>({
    info: { type: "model_call", iteration: context.stats.iterations, purpose: "turn" },
    async execute() {
      try {
        try {
          return await complete(manager ? await manager.prepare(context) : context.messages);
        } catch (error) {
          // A context-length refusal: one retry after a survival trim.
          if (!manager || !isContextLengthError(error) || context.signal.aborted) throw error;
          return await complete(await manager.survive(context));
        }
      } finally {
        release("reasoning_delta", reasoning.flush());
        release("text_delta", text.flush());
      }
    },
    records: (result) => [result.message],
  }).finally(() => clearTimeout(warmUp));
  manager?.observe(response.usage.inputTokens);
  context.stats.inputTokens += response.usage.inputTokens;
  context.stats.outputTokens += response.usage.outputTokens;
  const message = response.message;
  context.messages.push(message);
  const toolCalls = message.tool_calls ?? [];
  context.emit("assistant_message", {
    content: message.content === null ? null : context.redact(message.content),
    tool_call_count: toolCalls.length,
    finish_reason: response.finishReason,
  });
  if (toolCalls.length > 0) {
    return response.finishReason === "length"
      ? { type: "run_tools", message, outputCut: true }
      : { type: "run_tools", message };
  }
  context.emit("iteration_completed", {
    input_tokens: context.stats.inputTokens,
    output_tokens: context.stats.outputTokens,
    tools_called: 0,
  });
  return { type: "final_output", text: message.content };
}
