import assert from "node:assert/strict";
import { budgetsFromConfig } from "../../src/runtime/budgets_from_config.ts";
import { DEFAULT_CONFIG, type OdekConfig } from "../../src/config/odek_config.ts";

const config = (over: Partial<OdekConfig["budgets"]>, models: OdekConfig["models"] = {}) => ({
  ...DEFAULT_CONFIG,
  budgets: { ...DEFAULT_CONFIG.budgets, ...over },
  models,
});

Deno.test("budgetsFromConfig() leaves out the budgets that are off", () => {
  assert.deepEqual(budgetsFromConfig(DEFAULT_CONFIG, "m"), {});
});

Deno.test("budgetsFromConfig() converts seconds to ms and takes the prices of the exact model id", () => {
  const models = { "gpt-x": { inputCostPerMillionUsd: 3, outputCostPerMillionUsd: 15 } };
  const c = config({ maxRuntimeSeconds: 90, maxToolCalls: 5, maxCostUsd: 1 }, models);
  assert.deepEqual(budgetsFromConfig(c, "gpt-x"), {
    maxRuntimeMs: 90_000,
    maxToolCalls: 5,
    maxCostUsd: 1,
    inputCostPerMillionUsd: 3,
    outputCostPerMillionUsd: 15,
  });
  // No prefix matching, and no inherited properties taken for prices.
  assert.deepEqual(budgetsFromConfig(c, "gpt-x-mini"), {
    maxRuntimeMs: 90_000,
    maxToolCalls: 5,
    maxCostUsd: 1,
  });
  assert.equal(budgetsFromConfig(c, "constructor").inputCostPerMillionUsd, undefined);
});
