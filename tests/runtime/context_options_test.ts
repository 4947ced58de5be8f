import assert from "node:assert/strict";
import { contextOptionsFor } from "../../src/runtime/context_options.ts";
import { DEFAULT_CONFIG } from "../../src/config/odek_config.ts";

Deno.test("contextOptionsFor() uses models.<id>.contextWindow, else contextWindow, and maps context.*", () => {
  const config = {
    ...DEFAULT_CONFIG,
    contextWindow: 64_000,
    models: { m: { contextWindow: 32_768 } },
    context: { ...DEFAULT_CONFIG.context, compaction: false, compactionTimeoutSeconds: 5 },
  };
  const options = contextOptionsFor(config, "m");
  assert.equal(options.window, 32_768);
  assert.equal(options.compaction, false);
  assert.equal(options.compactionTimeoutMs, 5000);
  assert.equal(options.keepRecentToolResults, 4);
  assert.equal(contextOptionsFor(config, "other").window, 64_000);
});
