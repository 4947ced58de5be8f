/**
 * The context window of the model a run talks to.
 *
 * @module
 */
import { knownContextWindow } from "./known_context_windows.ts";
import type { OdekConfig } from "./odek_config.ts";

/** The window used when nothing else says: odek-go's default. */
export const FALLBACK_CONTEXT_WINDOW = 128_000;

/**
 * The context window, in tokens, of `model`: `models.<model>.contextWindow` when set, else a
 * number set as the top-level `contextWindow`, else the model's known window
 * ({@linkcode knownContextWindow}), else 128 000. `contextWindow: "auto"` (the default) means
 * "look the model up".
 *
 * @param config the resolved configuration
 * @param model the model id sent to the provider
 * @returns the window in tokens
 *
 * @example
 * ```ts
 * import { contextWindowFor } from "./context_window_for.ts";
 * import { DEFAULT_CONFIG } from "./odek_config.ts";
 * const config = { ...DEFAULT_CONFIG, models: { small: { contextWindow: 32_768 } } };
 * if (contextWindowFor(config, "small") !== 32_768) throw new Error("per-model window ignored");
 * if (contextWindowFor(config, "gpt-4o") !== 128_000) throw new Error("known window ignored");
 * if (contextWindowFor(config, "other") !== 128_000) throw new Error("fallback ignored");
 * if (contextWindowFor({ ...config, contextWindow: 8192 }, "gpt-4o") !== 8192) {
 *   throw new Error("an explicit window must win over the table");
 * }
 * ```
 */
export function contextWindowFor(
  config: Pick<OdekConfig, "contextWindow" | "models">,
  model: string,
): number {
  const own = config.models[model]?.contextWindow;
  if (own !== undefined) return own;
  if (typeof config.contextWindow === "number") return config.contextWindow;
  return knownContextWindow(model) ?? FALLBACK_CONTEXT_WINDOW;
}
