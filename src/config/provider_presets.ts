/**
 * Presets for the OpenAI-compatible endpoints people point odek at: base URL, the environment
 * variable that usually holds the key, and quirks. docs/model_client.md cites the source of each
 * base URL and of every quirk that differs from {@linkcode DEFAULT_QUIRKS}. The base URLs are data:
 * odek connects to one only when a run is configured with it.
 *
 * @module
 */
import { DEFAULT_QUIRKS, type ProviderQuirks } from "./provider_quirks.ts";

/**
 * A provider preset's name (docs/model_client.md): what `provider` (config) and `--provider`
 * accept besides `auto`.
 *
 * @example Point a runtime at a local Ollama
 * ```ts
 * import type { ProviderName } from "./provider_presets.ts";
 * const provider: ProviderName = "ollama";
 * if (provider !== "ollama") throw new Error("unreachable");
 * ```
 */
export type ProviderName =
  | "openai"
  | "openrouter"
  | "groq"
  | "together"
  | "deepseek"
  | "mistral"
  | "gemini"
  | "anthropic"
  | "ollama"
  | "lmstudio"
  | "vllm"
  | "llamacpp";

/** The names `provider` (config) and `--provider` accept, besides `auto`. */
export const PROVIDER_NAMES = [
  "openai",
  "openrouter",
  "groq",
  "together",
  "deepseek",
  "mistral",
  "gemini",
  "anthropic",
  "ollama",
  "lmstudio",
  "vllm",
  "llamacpp",
] as const satisfies readonly ProviderName[];
// Every name is in the list (a name added to the type alone fails to compile here).
const _everyProvider: [Exclude<ProviderName, (typeof PROVIDER_NAMES)[number]>] extends [never]
  ? true
  : never = true;

/** What a preset sets. */
export interface ProviderPreset {
  /** The preset's name, as `--provider` takes it. */
  name: ProviderName;
  /** How docs and messages name the provider. */
  label: string;
  /** The API root requests go under (`<baseUrl>/chat/completions`, `<baseUrl>/models`). */
  baseUrl: string;
  /**
   * The environment variable that holds the provider's key (read after `ODEK_API_KEY`, before
   * `OPENAI_API_KEY`); none for local servers that need no key.
   */
  keyVariable?: string;
  /** Other host names that mean this provider when `provider` is `auto`. */
  aliases?: readonly string[];
  /** How the endpoint differs from OpenAI's. */
  quirks: Readonly<ProviderQuirks>;
}

const preset = (
  name: ProviderName,
  label: string,
  baseUrl: string,
  keyVariable: string | undefined,
  quirks: Partial<ProviderQuirks> = {},
  aliases?: readonly string[],
): ProviderPreset =>
  Object.freeze({
    name,
    label,
    baseUrl,
    ...(keyVariable ? { keyVariable } : {}),
    ...(aliases ? { aliases } : {}),
    quirks: Object.freeze({ ...DEFAULT_QUIRKS, ...quirks }),
  });

/**
 * Every preset, by name. Quirks that differ from {@linkcode DEFAULT_QUIRKS}: OpenAI takes
 * `max_completion_tokens`; Groq and Gemini refuse `reasoning_content` in history; Mistral refuses
 * `stream_options`, `max_completion_tokens` and unknown message fields, and takes only nine-
 * character alphanumeric tool-call ids. Local servers listen on 127.0.0.1 at their default ports.
 *
 * @example
 * ```ts
 * import { PROVIDER_PRESETS } from "./provider_presets.ts";
 * const groq = PROVIDER_PRESETS.groq;
 * if (groq.baseUrl !== "https://api.groq.com/openai/v1" || groq.keyVariable !== "GROQ_API_KEY") {
 *   throw new Error("groq preset changed");
 * }
 * ```
 */
export const PROVIDER_PRESETS: Readonly<Record<ProviderName, ProviderPreset>> = Object.freeze({
  openai: preset("openai", "OpenAI", "https://api.openai.com/v1", "OPENAI_API_KEY", {
    maxTokensField: "max_completion_tokens",
  }),
  openrouter: preset(
    "openrouter",
    "OpenRouter",
    "https://openrouter.ai/api/v1",
    "OPENROUTER_API_KEY",
  ),
  groq: preset("groq", "Groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", {
    echoReasoning: false,
  }),
  together: preset(
    "together",
    "Together AI",
    "https://api.together.ai/v1",
    "TOGETHER_API_KEY",
    {},
    ["api.together.xyz"],
  ),
  deepseek: preset("deepseek", "DeepSeek", "https://api.deepseek.com", "DEEPSEEK_API_KEY"),
  mistral: preset("mistral", "Mistral AI", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", {
    streamUsage: false,
    echoReasoning: false,
    toolCallIds: "alnum9",
  }),
  gemini: preset(
    "gemini",
    "Google Gemini (OpenAI compatibility)",
    "https://generativelanguage.googleapis.com/v1beta/openai",
    "GEMINI_API_KEY",
    { echoReasoning: false },
  ),
  anthropic: preset(
    "anthropic",
    "Anthropic (OpenAI SDK compatibility)",
    "https://api.anthropic.com/v1",
    "ANTHROPIC_API_KEY",
  ),
  ollama: preset("ollama", "Ollama", "http://127.0.0.1:11434/v1", undefined),
  lmstudio: preset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1", undefined),
  vllm: preset("vllm", "vLLM", "http://127.0.0.1:8000/v1", "VLLM_API_KEY"),
  llamacpp: preset("llamacpp", "llama.cpp server", "http://127.0.0.1:8080/v1", "LLAMA_API_KEY"),
});
