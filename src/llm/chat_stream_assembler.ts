/**
 * Assembles streamed chat-completion chunks into one {@linkcode ModelResponse}.
 *
 * @module
 */
import { z } from "zod";
import type { AssistantMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { ModelDelta, ModelResponse, ModelUsage } from "./model.ts";
import { ToolCallAssembly } from "./_tool_call_assembly.ts";

const ToolCallDeltaSchema = z.looseObject({
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() })
    .nullish(),
});

/** The parts of a `chat.completion.chunk` odek reads; everything else is ignored. */
const ChunkSchema = z.looseObject({
  choices: z.array(z.looseObject({
    index: z.number().nullish(),
    delta: z.looseObject({
      content: z.string().nullish(),
      reasoning_content: z.string().nullish(),
      reasoning: z.string().nullish(),
      tool_calls: z.array(ToolCallDeltaSchema).nullish(),
    }).nullish(),
    finish_reason: z.string().nullish(),
  })).nullish(),
  usage: z.looseObject({
    prompt_tokens: z.number().nullish(),
    completion_tokens: z.number().nullish(),
  }).nullish(),
});

/** Options for {@linkcode ChatStreamAssembler}. */
export interface ChatStreamAssemblerOptions {
  /** 1-based loop iteration, for ids of calls that lack one (`it<iteration>-call<index>`). */
  iteration: number;
  /** Sees text, reasoning and tool-call starts as they arrive. @default none */
  onDelta?: (delta: ModelDelta) => void;
  /** Names the stream's origin in error messages. @default "the model" */
  source?: string;
}

/**
 * Accumulates `chat.completion.chunk` objects (choice 0 only) into an assistant message: text,
 * DeepSeek-style `reasoning_content` (or `reasoning`), and tool calls assembled by `index`,
 * including interleaved parallel calls, two calls a provider sends on one `index` (a new id, or a
 * new name after complete arguments), and a name restated on every chunk. Argument text is kept
 * verbatim (never parsed here, so invalid JSON reaches the loop, which refuses it); empty or
 * whitespace-only arguments become `"{}"` and a missing id becomes `it<iteration>-call<position>`.
 *
 * Borrowed from odek-go §3 (echoing `reasoning_content`), design §6 (tolerant assembly) and
 * issue 14 (cases 1 and 3, from failure reports against other agents).
 *
 * @example Assemble a streamed tool call
 * ```ts
 * import { ChatStreamAssembler, type ChatStreamAssemblerOptions } from "./chat_stream_assembler.ts";
 * const options: ChatStreamAssemblerOptions = { iteration: 2 };
 * const assembler = new ChatStreamAssembler(options);
 * const delta = (d: unknown, finish: string | null = null) => ({
 *   choices: [{ index: 0, delta: d, finish_reason: finish }],
 * });
 * assembler.push(delta({ tool_calls: [{ index: 0, function: { name: "glob", arguments: "" } }] }));
 * assembler.push(delta({}, "tool_calls"));
 * const { message } = assembler.finish();
 * if (message.tool_calls?.[0].id !== "it2-call0") throw new Error("unexpected id");
 * if (message.tool_calls?.[0].function.arguments !== "{}") throw new Error("unexpected args");
 * ```
 */
export class ChatStreamAssembler {
  readonly #options: ChatStreamAssemblerOptions;
  readonly #text: string[] = [];
  readonly #reasoning: string[] = [];
  readonly #calls = new ToolCallAssembly();
  #finishReason: string | undefined;
  #usage: ModelUsage = { inputTokens: 0, outputTokens: 0 };
  #chunks = 0;
  #choices = 0;

  /** @param options iteration for generated ids, the delta callback and the source name */
  constructor(options: ChatStreamAssemblerOptions) {
    this.#options = options;
  }

  /** How many chunks were pushed so far. */
  get chunkCount(): number {
    return this.#chunks;
  }

  /** How many choice-0 entries those chunks carried (0 for a stream of `choices: []`). */
  get choiceCount(): number {
    return this.#choices;
  }

  /**
   * Adds one parsed chunk and reports its deltas.
   *
   * @throws {OdekError} `MODEL_PROTOCOL` when the chunk does not have the chunk shape
   */
  push(chunk: unknown): void {
    this.#chunks++;
    const parsed = ChunkSchema.safeParse(chunk);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new OdekError(
        "MODEL_PROTOCOL",
        `${this.#source()} sent stream chunk ${this.#chunks} with an unexpected shape at ` +
          `"${issue.path.join(".")}": ${issue.message}. Check that the base URL points at an ` +
          `OpenAI-compatible chat-completions API.`,
      );
    }
    const { choices, usage } = parsed.data;
    if (usage) {
      // A provider's count is trusted only as a whole number of tokens: a negative or
      // non-finite one would let budgets be evaded (or spent at once).
      this.#usage = {
        inputTokens: tokenCount(usage.prompt_tokens),
        outputTokens: tokenCount(usage.completion_tokens),
      };
    }
    for (const choice of choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      this.#choices++;
      const delta = choice.delta ?? {};
      if (delta.content) this.#emitText("text", delta.content, this.#text);
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) this.#emitText("reasoning", reasoning, this.#reasoning);
      for (const call of delta.tool_calls ?? []) {
        const started = this.#calls.push(call);
        if (started) this.#options.onDelta?.({ type: "tool_call", ...started });
      }
      if (choice.finish_reason) this.#finishReason = choice.finish_reason;
    }
  }

  /**
   * Ends the stream and returns the assembled turn.
   *
   * @throws {OdekError} `MODEL_PROTOCOL` when no `finish_reason` arrived (a cut stream)
   */
  finish(): ModelResponse {
    if (this.#finishReason === undefined) {
      const why = this.#chunks > 0 && this.#choices === 0
        ? `its ${this.#chunks} chunks all had an empty "choices" list`
        : `it ended after ${this.#chunks} chunks without a finish_reason`;
      throw new OdekError(
        "MODEL_PROTOCOL",
        `The stream from ${this.#source()} was cut before the model finished: ${why}. ` +
          `Retry the run; if it keeps happening, check the provider or any proxy in between.`,
      );
    }
    const toolCalls = this.#calls.calls(this.#options.iteration);
    const text = this.#text.join("");
    const reasoning = this.#reasoning.join("");
    const message: AssistantMessage = { role: "assistant", content: text === "" ? null : text };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (reasoning !== "") message.reasoning_content = reasoning;
    return { message, finishReason: this.#finishReason, usage: { ...this.#usage } };
  }

  #source(): string {
    return this.#options.source ?? "the model";
  }

  #emitText(type: "text" | "reasoning", text: string, into: string[]): void {
    into.push(text);
    this.#options.onDelta?.({ type, text });
  }
}

/** A reported token count as a whole number ≥ 0 (a missing, negative or non-finite one is 0). */
function tokenCount(value: number | null | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}
