import assert from "node:assert/strict";
import { BudgetChecker } from "../../src/loop/budget_checker.ts";
import { newRunStats, type RunStats } from "../../src/loop/run_stats.ts";

const stats = (over: Partial<RunStats>): RunStats => ({ ...newRunStats(1_000), ...over });

Deno.test("BudgetChecker with no limits never reports a breach", () => {
  const c = new BudgetChecker();
  const s = stats({ inputTokens: 1e9, outputTokens: 1e9, toolCalls: 1e6 });
  assert.equal(c.usage(s), undefined);
  assert.equal(c.runtime(s, 1e12), undefined);
  assert.equal(c.remainingMs(s, 5_000), undefined);
  assert.deepEqual(c.toolBatch(s, 50), { runnable: 50 });
});

Deno.test("BudgetChecker.runtime() trips when the injected clock reaches the limit", async (t) => {
  const c = new BudgetChecker({ maxRuntimeMs: 90_000 });
  const s = stats({});
  await t.step("before the limit", () => {
    assert.equal(c.runtime(s, 1_000 + 89_999), undefined);
    assert.equal(c.remainingMs(s, 1_000 + 60_000), 30_000);
  });
  await t.step("at the limit (odek-go: elapsed >= max)", () => {
    assert.deepEqual(c.runtime(s, 1_000 + 90_000), {
      limit_name: "runtime",
      observed: 90,
      limit: 90,
    });
  });
  await t.step("past it, in seconds with ms precision", () => {
    assert.deepEqual(c.runtime(s, 1_000 + 95_250), {
      limit_name: "runtime",
      observed: 95.25,
      limit: 90,
    });
    assert.equal(c.remainingMs(s, 1_000 + 95_250), 0);
  });
});

Deno.test("BudgetChecker.usage() trips each token budget at its limit", async (t) => {
  await t.step("input tokens", () => {
    const c = new BudgetChecker({ maxInputTokens: 1000 });
    assert.equal(c.usage(stats({ inputTokens: 999 })), undefined);
    assert.deepEqual(c.usage(stats({ inputTokens: 1000 })), {
      limit_name: "input_tokens",
      observed: 1000,
      limit: 1000,
    });
  });
  await t.step("output tokens", () => {
    const c = new BudgetChecker({ maxOutputTokens: 50 });
    assert.equal(c.usage(stats({ outputTokens: 49, inputTokens: 1e6 })), undefined);
    assert.deepEqual(c.usage(stats({ outputTokens: 51 })), {
      limit_name: "output_tokens",
      observed: 51,
      limit: 50,
    });
  });
});

Deno.test("BudgetChecker.usage() enforces cost only with a cap and both prices", async (t) => {
  const spent = stats({ inputTokens: 2_000_000, outputTokens: 1_000_000 });
  await t.step("cap and prices: $2/M in + $8/M out = $12", () => {
    const c = new BudgetChecker({
      maxCostUsd: 10,
      inputCostPerMillionUsd: 2,
      outputCostPerMillionUsd: 8,
    });
    assert.ok(c.costEnforced);
    assert.equal(c.costUsd(spent), 12);
    assert.deepEqual(c.usage(spent), { limit_name: "cost_usd", observed: 12, limit: 10 });
    assert.equal(c.usage(stats({ inputTokens: 1_000_000 })), undefined); // $2
  });
  await t.step("a missing price turns cost enforcement off", () => {
    const c = new BudgetChecker({ maxCostUsd: 0.01, inputCostPerMillionUsd: 2 });
    assert.equal(c.costEnforced, false);
    assert.equal(c.usage(spent), undefined);
  });
  await t.step("prices without a cap enforce nothing", () => {
    const c = new BudgetChecker({ inputCostPerMillionUsd: 2, outputCostPerMillionUsd: 8 });
    assert.equal(c.usage(spent), undefined);
  });
  await t.step("fractions of a cent are rounded to 6 decimals", () => {
    const c = new BudgetChecker({
      maxCostUsd: 0.000001,
      inputCostPerMillionUsd: 0.15,
      outputCostPerMillionUsd: 0.6,
    });
    assert.deepEqual(c.usage(stats({ inputTokens: 7, outputTokens: 3 })), {
      limit_name: "cost_usd",
      observed: 0.000003,
      limit: 0.000001,
    });
  });
});

Deno.test("BudgetChecker.toolBatch() lets the calls under the cap run and reports the would-be total", () => {
  const c = new BudgetChecker({ maxToolCalls: 5 });
  assert.deepEqual(c.toolBatch(stats({ toolCalls: 2 }), 3), { runnable: 3 });
  assert.deepEqual(c.toolBatch(stats({ toolCalls: 4 }), 3), {
    runnable: 1,
    breach: { limit_name: "tool_calls", observed: 7, limit: 5 },
  });
  assert.deepEqual(c.toolBatch(stats({ toolCalls: 5 }), 1), {
    runnable: 0,
    breach: { limit_name: "tool_calls", observed: 6, limit: 5 },
  });
});

Deno.test("BudgetChecker counts the session's prior spend with the run's counters", () => {
  const c = new BudgetChecker(
    {
      maxInputTokens: 1000,
      maxToolCalls: 5,
      maxCostUsd: 1,
      inputCostPerMillionUsd: 1000,
      outputCostPerMillionUsd: 1000,
    },
    { inputTokens: 900, toolCalls: 4, costUsd: 0.5 },
  );
  assert.equal(c.usage(stats({ inputTokens: 99 })), undefined);
  assert.deepEqual(c.usage(stats({ inputTokens: 100 })), {
    limit_name: "input_tokens",
    observed: 1000,
    limit: 1000,
  });
  assert.deepEqual(c.toolBatch(stats({}), 2), {
    runnable: 1,
    breach: { limit_name: "tool_calls", observed: 6, limit: 5 },
  });
  assert.deepEqual(c.left(stats({ inputTokens: 50, outputTokens: 10, toolCalls: 1 })), {
    input_tokens: 50,
    tool_calls: 0,
    cost_usd: 0.44,
  });
});

Deno.test("BudgetChecker.prompt() refuses a prompt that alone is over what is left of the input or cost budget", async (t) => {
  await t.step(
    "input tokens: checked with the lower figure, reported with the whole estimate",
    () => {
      const c = new BudgetChecker({ maxInputTokens: 10_000 }, { inputTokens: 8_700 });
      assert.equal(c.prompt(stats({}), 1_300), undefined, "exactly what is left still fits");
      assert.deepEqual(c.prompt(stats({}), 1_301, 1_446), {
        limit_name: "input_tokens",
        observed: 10_146,
        limit: 10_000,
        prompt_tokens: 1_446,
      });
    },
  );
  await t.step("cost: the prompt's input price alone", () => {
    const c = new BudgetChecker(
      { maxCostUsd: 0.01, inputCostPerMillionUsd: 2, outputCostPerMillionUsd: 8 },
      { costUsd: 0.008 },
    );
    assert.equal(c.prompt(stats({}), 1_000), undefined); // $0.002
    assert.deepEqual(c.prompt(stats({}), 1_001), {
      limit_name: "cost_usd",
      observed: 0.010002,
      limit: 0.01,
      prompt_tokens: 1_001,
    });
  });
  await t.step("no budget, no refusal", () => {
    assert.equal(new BudgetChecker().prompt(stats({}), 1e9), undefined);
  });
});
