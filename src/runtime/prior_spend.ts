/**
 * What a session spent before a run, as the run's budgets count it (issue 14, case 6).
 *
 * @module
 */
import type { OdekConfig } from "../config/odek_config.ts";
import type { PriorSpend } from "../loop/budget_checker.ts";
import type { SessionSpend } from "../session/session_store.ts";

/**
 * The session's spend before this run: its tokens and tool calls, and its estimated cost with each
 * model's prices from `models.<id>` (tokens of a model without both prices are priced as the
 * run's model; without prices anywhere the cost is 0, and the cost budget is not enforced).
 *
 * @param spend what the session's journal says it spent
 * @param config the resolved configuration (the prices)
 * @param model the run's model id
 * @returns the spend to count against the run's budgets
 *
 * @example Two models, one with prices
 * ```ts
 * import { priorSpend } from "./prior_spend.ts";
 * import { DEFAULT_CONFIG } from "../config/odek_config.ts";
 * const config = {
 *   ...DEFAULT_CONFIG,
 *   models: { big: { inputCostPerMillionUsd: 10, outputCostPerMillionUsd: 30 } },
 * };
 * const spent = priorSpend({
 *   inputTokens: 2_000_000, outputTokens: 0, toolCalls: 4,
 *   byModel: { big: { inputTokens: 1_000_000, outputTokens: 0 }, small: { inputTokens: 1_000_000, outputTokens: 0 } },
 * }, config, "big");
 * if (spent.costUsd !== 20 || spent.toolCalls !== 4) throw new Error(JSON.stringify(spent));
 * ```
 */
export function priorSpend(spend: SessionSpend, config: OdekConfig, model: string): PriorSpend {
  const pricesOf = (id: string) => {
    const facts = Object.hasOwn(config.models, id) ? config.models[id] : undefined;
    const input = facts?.inputCostPerMillionUsd ?? 0;
    const output = facts?.outputCostPerMillionUsd ?? 0;
    return input > 0 && output > 0 ? { input, output } : undefined;
  };
  const fallback = pricesOf(model);
  let costUsd = 0;
  for (const [id, usage] of Object.entries(spend.byModel)) {
    const prices = pricesOf(id) ?? fallback;
    if (!prices) continue;
    costUsd += (usage.inputTokens * prices.input + usage.outputTokens * prices.output) / 1e6;
  }
  return {
    inputTokens: spend.inputTokens,
    outputTokens: spend.outputTokens,
    toolCalls: spend.toolCalls,
    costUsd,
  };
}
