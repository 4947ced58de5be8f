/**
 * The context-management settings of a run, from the configuration.
 *
 * @module
 */
import { contextWindowFor } from "../config/context_window_for.ts";
import type { OdekConfig } from "../config/odek_config.ts";
import type { ContextOptions } from "../loop/context_manager.ts";

/**
 * Map `contextWindow`, `models.<model>.contextWindow` and `context.*` to the options of the
 * run's context manager (docs/context.md).
 *
 * @param config the resolved configuration
 * @param model the model id the run talks to
 * @returns the options (without a resumed digest; `executeRun` adds the session's)
 *
 * @example
 * ```ts
 * import { contextOptionsFor } from "./context_options.ts";
 * import { DEFAULT_CONFIG } from "../config/odek_config.ts";
 * const options = contextOptionsFor({ ...DEFAULT_CONFIG, models: { m: { contextWindow: 32_768 } } }, "m");
 * if (options.window !== 32_768 || options.compaction !== true) throw new Error(JSON.stringify(options));
 * ```
 */
export function contextOptionsFor(config: OdekConfig, model: string): ContextOptions {
  const c = config.context;
  return {
    window: contextWindowFor(config, model),
    compaction: c.compaction,
    keepRecentToolResults: c.keepRecentToolResults,
    reserveTokens: c.reserveTokens,
    triggerRatio: c.triggerRatio,
    targetRatio: c.targetRatio,
    compactionTimeoutMs: c.compactionTimeoutSeconds * 1000,
    compactionMaxTokens: c.compactionMaxTokens,
  };
}
