/**
 * The `call_model` step: ask the model for the next turn, persist the assistant message before
 * any of its tool calls runs, and decide the next step.
 *
 * @module
 */
import { endPhase, startPhase } from "../_util/step_phase.ts";
import type { AssistantMessage } from "../_util/chat_message.ts";
import { StreamRedactor } from "../_util/stream_redactor.ts";
import type { ModelResponse } from "../llm/model.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import { mintToolCallId } from "../session/repair_tool_calls.ts";
import type { BudgetBreach } from "./budget_checker.ts";
import { estimateMessageTokens, estimateToolSpecTokens } from "./estimate_tokens.ts";
import { isContextLengthError } from "./is_context_length_error.ts";
import type { RunContext } from "./run_context.ts";
import { withPlan } from "./with_plan.ts";

/** What follows a model turn. */
export type AfterModelStep =
  /** `outputCut`: the reply ended at the output limit (`finish_reason: "length"`). */
  | { type: "run_tools"; message: AssistantMessage; outputCut?: true }
  | { type: "final_output"; text: string | null }
  /** The request was not sent: its prompt alone is over what is left of the input budget. */
  | { type: "budget_exceeded"; breach: BudgetBreach };

/**
 * Share of the estimated prompt counted against the input budget before a request is sent: the
 * estimate (calibrated by the provider's counts) may run high, and only a request that would
 * certainly cross the budget is held back.
 */
const CERTAIN_SHARE = 0.9;

/** When the last model call ended (`ODEK_PROFILE_STEPS=1` only; see `step_phase.ts`). */
let lastModelEnd = 0;

/** Thrown inside the step to hold a request back; never leaves this file. */
class PromptOverBudget extends Error {
  constructor(readonly breach: BudgetBreach) {
    super("the prompt is over the input budget");
  }
}

/**
 * Run one model turn.
 *
 * The turn is one step of `context.steps`: the assistant message (with its tool calls) is recorded
 * (by default appended to the journal and fsynced) before the step returns, so a crash while the
 * tools run leaves evidence of every call (design §5).
 *
 * What is sent comes from `context.contextManager` when there is one (trimmed near the window);
 * a context-length refusal is retried once after its survival trim. A request whose estimated
 * prompt alone is over what is left of the session's input or cost budget is not sent (the step ends
 * `budget_exceeded`, nothing recorded). A tool-call id of the reply that the session already
 * holds (a model or provider that restarts its ids, a resume) is replaced by a fresh one before
 * the turn is recorded, so ids stay unique within the session (design §6). The turn's usage is
 * journaled (`recordUsage`).
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
  const complete = (messages: ChatMessage[]) => {
    const start = startPhase();
    if (lastModelEnd) endPhase("between-model-calls", lastModelEnd);
    return context.model.complete(
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
    ).finally(() => {
      endPhase("model", start);
      lastModelEnd = startPhase();
    });
  };
  // Context management (docs/context.md): only what is sent is trimmed, never the transcript.
  const manager = context.contextManager;
  const prepare = async (): Promise<ChatMessage[]> => {
    const start = startPhase();
    const messages = manager ? await manager.prepare(context) : context.messages;
    const estimate = manager?.lastEstimate ?? estimate_(context, messages);
    // Checked with the estimate's certain share, reported with the whole estimate.
    const certain = Math.floor(estimate * CERTAIN_SHARE);
    const breach = context.budgets?.prompt(context.stats, certain, estimate);
    if (breach) throw new PromptOverBudget(breach);
    endPhase("context-prepare", start);
    return messages;
  };
  let response: ModelResponse;
  try {
    // One step: the whole turn (a survival retry included); only the finished turn is recorded.
    response = await context.steps.run<ModelResponse>({
      info: { type: "model_call", iteration: context.stats.iterations, purpose: "turn" },
      async execute() {
        try {
          let answer: ModelResponse;
          try {
            answer = await complete(await prepare());
          } catch (error) {
            // A context-length refusal: one retry after a survival trim.
            if (!manager || !isContextLengthError(error) || context.signal.aborted) throw error;
            answer = await complete(await manager.survive(context));
          }
          return withUniqueIds(answer, context);
        } finally {
          release("reasoning_delta", reasoning.flush());
          release("text_delta", text.flush());
        }
      },
      records: (result) => [result.message],
    }).finally(() => clearTimeout(warmUp));
  } catch (error) {
    if (!(error instanceof PromptOverBudget)) throw error;
    context.stats.iterations -= 1; // nothing was sent
    return { type: "budget_exceeded", breach: error.breach };
  }
  manager?.observe(response.usage.inputTokens);
  context.stats.inputTokens += response.usage.inputTokens;
  context.stats.outputTokens += response.usage.outputTokens;
  if (response.usage.inputTokens > 0 || response.usage.outputTokens > 0) {
    const journaling = startPhase();
    await context.journal.recordUsage?.(response.usage);
    endPhase("journal:usage", journaling);
  }
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

/** The raw estimate of a request without a context manager: the messages and the tool schemas. */
function estimate_(context: RunContext, messages: readonly ChatMessage[]): number {
  return messages.reduce((n, m) => n + estimateMessageTokens(m), 0) +
    estimateToolSpecTokens(context.toolSpecs);
}

/**
 * The reply with every tool-call id the session already holds replaced by a fresh one
 * (`<id>-r2`, …): deterministic, so a replayed run mints the same ids as the recorded one.
 */
function withUniqueIds(response: ModelResponse, context: RunContext): ModelResponse {
  const calls = response.message.tool_calls;
  if (!calls?.length) return response;
  const taken = new Set(context.journal.toolCallIds ?? []);
  for (const message of context.messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) taken.add(call.id);
    }
  }
  if (!calls.some((call) => taken.has(call.id))) return response;
  const fresh = calls.map((call) => {
    const id = taken.has(call.id) ? mintToolCallId(call.id, taken) : call.id;
    taken.add(id);
    return id === call.id ? call : { ...call, id };
  });
  return { ...response, message: { ...response.message, tool_calls: fresh } };
}
