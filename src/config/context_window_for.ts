/**
 * The context window of the model a run talks to.
 *
 * @module
 */
import type { OdekConfig } from "./odek_config.ts";

/**
 * The context window, in tokens, of `model`: `models.<model>.contextWindow` when set, else the
 * top-level `contextWindow` (default 128 000).
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
 * if (contextWindowFor(config, "other") !== 128_000) throw new Error("fallback ignored");
 * ```
 */
export function contextWindowFor(
  config: Pick<OdekConfig, "contextWindow" | "models">,
  model: string,
): number {
  return config.models[model]?.contextWindow ?? config.contextWindow;
}
