import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { resolveConfig } from "../../src/config/resolve_config.ts";

async function withConfig<T>(text: string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "odek-budgets-config-" });
  try {
    const file = join(dir, "config.jsonc");
    await Deno.writeTextFile(file, text);
    return await fn(file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("resolveConfig() defaults every hard budget to 0 (off) and models to {}", async () => {
  const config = await resolveConfig({ configFile: "/nonexistent/c.jsonc", env: {} });
  assert.deepEqual(config.budgets, {
    maxIterations: 90,
    maxToolParallel: 4,
    maxRuntimeSeconds: 0,
    maxToolCalls: 0,
    maxInputTokens: 0,
    maxOutputTokens: 0,
    maxCostUsd: 0,
  });
  assert.deepEqual(config.models, {});
});

Deno.test("resolveConfig() reads budgets and per-model prices from the file, the environment overriding", async () => {
  await withConfig(
    `{
      // prices for the cost budget
      "models": { "m-1": { "inputCostPerMillionUsd": 0.4, "outputCostPerMillionUsd": 1.6, "contextWindow": 32768 } },
      "budgets": { "maxCostUsd": 2.5, "maxRuntimeSeconds": 3600, "maxToolCalls": 100 },
    }`,
    async (configFile) => {
      const config = await resolveConfig({
        configFile,
        env: { ODEK_MAX_RUNTIME_SECONDS: "60", ODEK_MAX_INPUT_TOKENS: "100000" },
      });
      assert.equal(config.budgets.maxCostUsd, 2.5);
      assert.equal(config.budgets.maxRuntimeSeconds, 60);
      assert.equal(config.budgets.maxToolCalls, 100);
      assert.equal(config.budgets.maxInputTokens, 100_000);
      assert.deepEqual(config.models["m-1"], {
        inputCostPerMillionUsd: 0.4,
        outputCostPerMillionUsd: 1.6,
        contextWindow: 32768,
      });
    },
  );
});

Deno.test("resolveConfig() refuses negative budgets and unknown model fields, naming the key", async (t) => {
  for (
    const [text, pattern] of [
      [
        `{ "budgets": { "maxToolCalls": -1 } }`,
        /"budgets\.maxToolCalls": got -1, expected a number at least 0/,
      ],
      [`{ "budgets": { "maxCostUsd": "lots" } }`, /"budgets\.maxCostUsd": got "lots"/],
      [
        `{ "models": { "m": { "inputCostPerMillion": 1 } } }`,
        /unknown key models\.m\.inputCostPerMillion/,
      ],
    ] as const
  ) {
    await t.step(text, async () => {
      await withConfig(text, async (configFile) => {
        await assert.rejects(
          resolveConfig({ configFile, env: {} }),
          (e) => e instanceof OdekError && e.code === "CONFIG_INVALID" && pattern.test(e.message),
        );
      });
    });
  }
});
