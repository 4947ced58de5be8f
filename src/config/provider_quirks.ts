/**
 * What an OpenAI-compatible provider accepts differently from OpenAI itself, as flags the model
 * client reads. Each preset's values and their sources are listed in docs/model_client.md.
 *
 * @module
 */

/**
 * How one provider's chat-completions endpoint differs; see {@linkcode DEFAULT_QUIRKS}.
 *
 * @example Quirks of a Mistral-like endpoint
 * ```ts
 * import { DEFAULT_QUIRKS, type ProviderQuirks } from "./provider_quirks.ts";
 * const quirks: ProviderQuirks = { ...DEFAULT_QUIRKS, streamUsage: false, toolCallIds: "alnum9" };
 * if (quirks.toolCallIds !== "alnum9") throw new Error("ids");
 * ```
 */
export interface ProviderQuirks {
  /**
   * Send `stream_options: {include_usage: true}` so the stream ends with a usage chunk. Off where
   * the parameter is refused (Mistral answers 422 and reports usage unasked).
   */
  streamUsage: boolean;
  /**
   * Send the `reasoning_content` of earlier assistant turns back. DeepSeek's thinking mode
   * requires it after tool calls; Groq and Mistral refuse the unknown field with a 400/422.
   */
  echoReasoning: boolean;
  /**
   * The request field that caps the reply: OpenAI's reasoning models refuse `max_tokens` and want
   * `max_completion_tokens`; Mistral refuses `max_completion_tokens`.
   */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /**
   * The tool-call ids the provider accepts in history: `any`, or `alnum9` (Mistral: exactly nine
   * letters and digits). With `alnum9` other ids are rewritten, the same way in every request.
   */
  toolCallIds: "any" | "alnum9";
}

/**
 * Quirks of an endpoint odek knows nothing about: what odek sent before presets existed (usage in
 * the stream, reasoning echoed as odek-go does, `max_tokens`, ids as they are).
 *
 * @example
 * ```ts
 * import { DEFAULT_QUIRKS } from "./provider_quirks.ts";
 * if (!DEFAULT_QUIRKS.streamUsage || DEFAULT_QUIRKS.toolCallIds !== "any") throw new Error("x");
 * ```
 */
export const DEFAULT_QUIRKS: Readonly<ProviderQuirks> = Object.freeze({
  streamUsage: true,
  echoReasoning: true,
  maxTokensField: "max_tokens",
  toolCallIds: "any",
});
