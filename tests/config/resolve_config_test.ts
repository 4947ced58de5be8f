import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { DEFAULT_CONFIG } from "../../src/config/odek_config.ts";
import { resolveConfig } from "../../src/config/resolve_config.ts";

async function withConfigFile(text: string, fn: (file: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "config.jsonc");
    await Deno.writeTextFile(file, text);
    await fn(file);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function rejection(promise: Promise<unknown>): Promise<OdekError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OdekError, `expected OdekError, got ${error}`);
    return error;
  }
  assert.fail("expected a rejection");
}

Deno.test("resolveConfig() returns the defaults when there is no file, env or flag", async () => {
  const config = await resolveConfig({ configFile: "/nonexistent/odek/config.jsonc", env: {} });
  assert.deepEqual(config, DEFAULT_CONFIG);
});

Deno.test("resolveConfig() layers file < env < flags", async () => {
  await withConfigFile(
    `{
      // comments and trailing commas are JSONC
      "model": "file-model",
      "budgets": { "maxIterations": 10, "maxToolParallel": 2, },
      "timeouts": { "shellSeconds": 60 },
    }`,
    async (file) => {
      const config = await resolveConfig({
        configFile: file,
        env: { ODEK_MODEL: "env-model", ODEK_MAX_ITERATIONS: "20" },
        flags: { budgets: { maxIterations: 30 } },
      });
      assert.equal(config.model, "env-model");
      assert.equal(config.budgets.maxIterations, 30);
      assert.equal(config.budgets.maxToolParallel, 2);
      assert.equal(config.timeouts.shellSeconds, 60);
      assert.equal(config.timeouts.requestSeconds, DEFAULT_CONFIG.timeouts.requestSeconds);
    },
  );
});

Deno.test("resolveConfig() takes ODEK_BASE_URL before OPENAI_BASE_URL", async () => {
  const both = await resolveConfig({
    configFile: "/nonexistent/c.jsonc",
    env: { ODEK_BASE_URL: "http://127.0.0.1:1/v1", OPENAI_BASE_URL: "http://127.0.0.1:2/v1" },
  });
  assert.equal(both.baseUrl, "http://127.0.0.1:1/v1");
  const openai = await resolveConfig({
    configFile: "/nonexistent/c.jsonc",
    env: { OPENAI_BASE_URL: "http://127.0.0.1:2/v1" },
  });
  assert.equal(openai.baseUrl, "http://127.0.0.1:2/v1");
});

Deno.test("resolveConfig() names the file, key path, value and expected shape of a bad value", async () => {
  await withConfigFile(`{ "timeouts": { "shellSeconds": "soon" } }`, async (file) => {
    const error = await rejection(resolveConfig({ configFile: file, env: {} }));
    assert.equal(error.code, "CONFIG_INVALID");
    assert.match(error.message, new RegExp(file.replaceAll("/", "\\/")));
    assert.match(error.message, /"timeouts\.shellSeconds"/);
    assert.match(error.message, /got "soon"/);
    assert.match(error.message, /expected .*number/);
  });
});

Deno.test("resolveConfig() refuses unknown keys with their path", async () => {
  await withConfigFile(`{ "budgets": { "maxIteration": 3 } }`, async (file) => {
    const error = await rejection(resolveConfig({ configFile: file, env: {} }));
    assert.match(
      error.message,
      /unknown key budgets\.maxIteration\. Did you mean "budgets\.maxIterations"\?/,
    );
  });
});

Deno.test("resolveConfig() reports JSONC syntax errors with line and column", async () => {
  await withConfigFile(`{\n  "model": "x"\n  "sandbox": "none"\n}`, async (file) => {
    const error = await rejection(resolveConfig({ configFile: file, env: {} }));
    assert.match(error.message, /line 3, column 3: comma expected\./);
  });
});

Deno.test("resolveConfig() names the environment variable of a bad value", async () => {
  const error = await rejection(
    resolveConfig({ configFile: "/nonexistent/c.jsonc", env: { ODEK_MAX_ITERATIONS: "lots" } }),
  );
  assert.match(error.message, /environment variable ODEK_MAX_ITERATIONS/);
  const sandbox = await rejection(
    resolveConfig({ configFile: "/nonexistent/c.jsonc", env: { ODEK_SANDBOX: "podman" } }),
  );
  assert.match(sandbox.message, /ODEK_SANDBOX at "sandbox": got "podman"/);
});

Deno.test("resolveConfig() names the flag of a bad value", async () => {
  const error = await rejection(
    resolveConfig({ configFile: "/nonexistent/c.jsonc", env: {}, flags: { baseUrl: "not a url" } }),
  );
  assert.match(error.message, /flag --base-url/);
  assert.equal(error.code, "USAGE", "a bad flag value is a usage error (exit code 2)");
});

Deno.test("resolveConfig() refuses a config path that is not a regular file instead of reading it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "config.jsonc"));
    const error = await rejection(
      resolveConfig({ configFile: join(dir, "config.jsonc"), env: {} }),
    );
    assert.match(error.message, /is not a regular file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveConfig() turns a parser crash on absurd nesting into a clear error", async () => {
  await withConfigFile("[".repeat(200_000), async (file) => {
    const error = await rejection(resolveConfig({ configFile: file, env: {} }));
    assert.equal(error.code, "CONFIG_INVALID");
    assert.match(error.message, /Cannot parse .*config\.jsonc/);
  });
});

Deno.test("resolveConfig() suggests nothing for a key far from every known one", async () => {
  await withConfigFile(`{ "frobnicate": true }`, async (file) => {
    const error = await rejection(resolveConfig({ configFile: file, env: {} }));
    assert.match(error.message, /unknown key frobnicate\. Remove it/);
  });
});

Deno.test("resolveConfig() reads per-model windows and context settings, and ODEK_COMPACTION", async () => {
  await withConfigFile(
    `{
      "contextWindow": 64000,
      "models": { "small-model": { "contextWindow": 32768, "inputCostPerMillionUsd": 0.5 } },
      "context": { "keepRecentToolResults": 6, "triggerRatio": 0.8 },
    }`,
    async (configFile) => {
      const config = await resolveConfig({ configFile, env: { ODEK_COMPACTION: "false" } });
      assert.equal(config.models["small-model"].contextWindow, 32768);
      assert.equal(config.contextWindow, 64000);
      assert.equal(config.context.keepRecentToolResults, 6);
      assert.equal(config.context.triggerRatio, 0.8);
      assert.equal(config.context.targetRatio, 0.6);
      assert.equal(config.context.compaction, false);
    },
  );
  const error = await rejection(
    resolveConfig({ configFile: "/nonexistent/c.jsonc", env: { ODEK_COMPACTION: "maybe" } }),
  );
  assert.match(error.message, /ODEK_COMPACTION/);
});

Deno.test("resolveConfig() reads toolOutput from the file and ODEK_TOOL_OUTPUT_* and checks head + tail fit the cap", async () => {
  assert.deepEqual(DEFAULT_CONFIG.toolOutput, {
    maxBytes: 16_384,
    headBytes: 12_288,
    tailBytes: 4_096,
  });
  await withConfigFile(
    '{ "toolOutput": { "maxBytes": 65536, "headBytes": 49152 } }',
    async (file) => {
      const config = await resolveConfig({
        configFile: file,
        env: { ODEK_TOOL_OUTPUT_TAIL_BYTES: "16384" },
      });
      assert.deepEqual(config.toolOutput, {
        maxBytes: 65_536,
        headBytes: 49_152,
        tailBytes: 16_384,
      });
    },
  );
  const error = await rejection(resolveConfig({
    configFile: "/nonexistent/odek/config.jsonc",
    env: { ODEK_TOOL_OUTPUT_MAX_BYTES: "8192" },
  }));
  assert.equal(error.code, "CONFIG_INVALID");
  assert.match(
    error.message,
    /toolOutput\.headBytes \(12288\) \+ toolOutput\.tailBytes \(4096\) exceed toolOutput\.maxBytes \(8192\)/,
  );
});

Deno.test("resolveConfig() reads network.allowDomains from the file and ODEK_ALLOW_DOMAINS", async () => {
  await withConfigFile(
    '{ "network": { "allowDomains": ["example.com", "*.pypi.org"] } }',
    async (file) => {
      const fromFile = await resolveConfig({ configFile: file, env: {} });
      assert.deepEqual(fromFile.network.allowDomains, ["example.com", "*.pypi.org"]);
      const fromEnv = await resolveConfig({
        configFile: file,
        env: { ODEK_ALLOW_DOMAINS: " github.com, ,198.51.100.7 " },
      });
      assert.deepEqual(fromEnv.network.allowDomains, ["github.com", "198.51.100.7"]);
    },
  );
  const none = await resolveConfig({ configFile: "/nonexistent/c.jsonc", env: {} });
  assert.deepEqual(none.network.allowDomains, []);
  await assert.rejects(
    resolveConfig({
      configFile: "/nonexistent/c.jsonc",
      env: { ODEK_ALLOW_DOMAINS: "ok.test,bad domain" },
    }),
    (error: unknown) => {
      assert.ok(error instanceof OdekError && error.code === "CONFIG_INVALID");
      assert.match(error.message, /ODEK_ALLOW_DOMAINS/);
      return true;
    },
  );
});

Deno.test("resolveConfig() reads the sandbox process limit from ODEK_SANDBOX_MAX_PROCESSES", async () => {
  const config = await resolveConfig({
    configFile: "/nonexistent/odek/config.jsonc",
    env: { ODEK_SANDBOX_MAX_PROCESSES: "256" },
  });
  assert.equal(config.sandboxMaxProcesses, 256);
  await assert.rejects(
    resolveConfig({
      configFile: "/nonexistent/odek/config.jsonc",
      env: { ODEK_SANDBOX_MAX_PROCESSES: "2" },
    }),
    /sandboxMaxProcesses/,
  );
});
