/**
 * Context windows of well-known hosted models, so a run needs no `contextWindow` setting for
 * them. Only families whose window is documented and the same for every dated version are
 * listed; moving aliases whose window changed over time (e.g. `deepseek-chat`) are not.
 * Sources: docs/model_client.md ("Context windows").
 *
 * @module
 */

/** `[model id prefix, window in tokens]`, most specific first. */
export const KNOWN_CONTEXT_WINDOWS: readonly (readonly [string, number])[] = Object.freeze([
  ["gpt-5.5", 1_050_000],
  ["gpt-5.4", 1_050_000],
  ["gpt-5.2-chat", 128_000],
  ["gpt-5.2", 400_000],
  ["gpt-5.1-chat", 128_000],
  ["gpt-5.1", 400_000],
  ["gpt-5-chat", 128_000],
  ["gpt-5", 400_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["o4-mini", 200_000],
  ["o3", 200_000],
  ["claude-opus-4", 200_000],
  ["claude-sonnet-4", 200_000],
  ["claude-haiku-4", 200_000],
  ["claude-3", 200_000],
  ["gemini-2.5", 1_048_576],
  ["gemini-2.0-flash", 1_048_576],
]);

/**
 * The known window of `model`, matching a listed prefix exactly or followed by `-` (so `gpt-4.1`
 * covers `gpt-4.1-mini` and `gpt-4.1-2025-04-14`, not `gpt-4.10`). A gateway's vendor prefix
 * (`openai/gpt-4.1`, `models/gemini-2.5-pro`) is ignored; case does not matter.
 *
 * @param model the model id sent to the provider
 * @returns the window in tokens, or `undefined` for a model not in the table
 *
 * @example
 * ```ts
 * import { knownContextWindow } from "./known_context_windows.ts";
 * if (knownContextWindow("openai/gpt-4.1-mini") !== 1_047_576) throw new Error("prefix");
 * if (knownContextWindow("gpt-5-chat-latest") !== 128_000) throw new Error("chat variant");
 * if (knownContextWindow("llama3.1:8b") !== undefined) throw new Error("guessed");
 * ```
 */
export function knownContextWindow(model: string): number | undefined {
  const id = model.toLowerCase().replace(/^.*\//, "");
  return KNOWN_CONTEXT_WINDOWS.find(([prefix]) => id === prefix || id.startsWith(`${prefix}-`))
    ?.[1];
}
