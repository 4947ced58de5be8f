/**
 * The run's hard budgets from the resolved configuration.
 *
 * @module
 */
import type { OdekConfig } from "../config/odek_config.ts";
import type { RunBudgets } from "../loop/budget_checker.ts";

/**
 * Turn `budgets.*` (seconds, counts, US dollars; 0 = off) and the prices in `models.<model>`
 * into the loop's {@linkcode RunBudgets}. Prices are looked up by the exact model id.
 *
 * @param config the resolved configuration
 * @param model the model id the run uses
 * @returns the budgets, with only the limits that are on
 *
 * @example
 * ```ts
 * import { budgetsFromConfig } from "./budgets_from_config.ts";
 * import { DEFAULT_CONFIG } from "../config/odek_config.ts";
 * const config = { ...DEFAULT_CONFIG, budgets: { ...DEFAULT_CONFIG.budgets, maxRuntimeSeconds: 90 } };
 * if (budgetsFromConfig(config, "m").maxRuntimeMs !== 90_000) throw new Error("runtime");
 * ```
 */
export function budgetsFromConfig(config: OdekConfig, model: string): RunBudgets {
  const b = config.budgets;
  const prices = Object.hasOwn(config.models, model) ? config.models[model] : undefined;
  const on = (n: number) => (n > 0 ? n : undefined);
  const out: RunBudgets = {
    maxRuntimeMs: b.maxRuntimeSeconds > 0 ? b.maxRuntimeSeconds * 1000 : undefined,
    maxToolCalls: on(b.maxToolCalls),
    maxInputTokens: on(b.maxInputTokens),
    maxOutputTokens: on(b.maxOutputTokens),
    maxCostUsd: on(b.maxCostUsd),
    inputCostPerMillionUsd: prices?.inputCostPerMillionUsd,
    outputCostPerMillionUsd: prices?.outputCostPerMillionUsd,
  };
  return Object.fromEntries(
    Object.entries(out).filter(([, value]) => value !== undefined),
  ) as RunBudgets;
}
