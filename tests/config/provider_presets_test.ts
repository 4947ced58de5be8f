/**
 * Provider presets (issue 14): the table itself, how a configuration picks one, the key
 * precedence, and how `--base-url` and the layers interact. Base URLs here are data: no test
 * connects to them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { contextWindowFor } from "../../src/config/context_window_for.ts";
import { knownContextWindow } from "../../src/config/known_context_windows.ts";
import { DEFAULT_CONFIG } from "../../src/config/odek_config.ts";
import {
  PROVIDER_NAMES,
  PROVIDER_PRESETS,
  type ProviderName,
} from "../../src/config/provider_presets.ts";
import { DEFAULT_QUIRKS, type ProviderQuirks } from "../../src/config/provider_quirks.ts";
import { resolveApiKey } from "../../src/config/resolve_api_key.ts";
import { resolveConfig } from "../../src/config/resolve_config.ts";
import { resolveProvider } from "../../src/config/resolve_provider.ts";

type Row = [ProviderName, string, string | undefined, Partial<ProviderQuirks>];

/** Every preset: base URL, key variable, and the quirks that differ from the defaults. */
const TABLE: Row[] = [
  ["openai", "https://api.openai.com/v1", "OPENAI_API_KEY", {
    maxTokensField: "max_completion_tokens",
  }],
  ["openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY", {}],
  ["groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY", { echoReasoning: false }],
  ["together", "https://api.together.ai/v1", "TOGETHER_API_KEY", {}],
  ["deepseek", "https://api.deepseek.com", "DEEPSEEK_API_KEY", {}],
  ["mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", {
    streamUsage: false,
    echoReasoning: false,
    toolCallIds: "alnum9",
  }],
  ["gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY", {
    echoReasoning: false,
  }],
  ["anthropic", "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY", {}],
  ["ollama", "http://127.0.0.1:11434/v1", undefined, {}],
  ["lmstudio", "http://127.0.0.1:1234/v1", undefined, {}],
  ["vllm", "http://127.0.0.1:8000/v1", "VLLM_API_KEY", {}],
  ["llamacpp", "http://127.0.0.1:8080/v1", "LLAMA_API_KEY", {}],
];

Deno.test("PROVIDER_PRESETS: every preset's base URL, key variable and quirks", async (t) => {
  assert.deepEqual(TABLE.map((row) => row[0]), [...PROVIDER_NAMES]);
  assert.deepEqual(Object.keys(PROVIDER_PRESETS), [...PROVIDER_NAMES]);
  for (const [name, baseUrl, keyVariable, quirks] of TABLE) {
    await t.step(name, () => {
      const preset = PROVIDER_PRESETS[name];
      assert.equal(preset.name, name);
      assert.equal(preset.baseUrl, baseUrl);
      assert.equal(preset.keyVariable, keyVariable);
      assert.deepEqual(preset.quirks, { ...DEFAULT_QUIRKS, ...quirks });
      assert.ok(Object.isFrozen(preset) && Object.isFrozen(preset.quirks));
    });
  }
});

Deno.test("resolveProvider(): a named preset, a preset found by the base URL's host, or none", () => {
  const named = resolveProvider({ provider: "mistral", baseUrl: "http://127.0.0.1:9/v1" });
  assert.equal(named.source, "config");
  assert.equal(named.preset?.name, "mistral", "a proxy in front keeps the named quirks");
  assert.equal(named.quirks.toolCallIds, "alnum9");
  const cases: [string, ProviderName | undefined][] = [
    ["https://api.groq.com/openai/v1", "groq"],
    ["https://API.DEEPSEEK.COM/v1", "deepseek"],
    ["https://api.together.xyz/v1", "together"],
    ["https://generativelanguage.googleapis.com/v1beta/openai/", "gemini"],
    ["http://127.0.0.1:11434/v1", undefined],
    ["http://localhost:8000/v1", undefined],
  ];
  for (const [baseUrl, expected] of cases) {
    const found = resolveProvider({ provider: "auto", baseUrl });
    assert.equal(found.preset?.name, expected, baseUrl);
    assert.equal(found.source, expected ? "base_url" : "none", baseUrl);
    if (!expected) assert.deepEqual(found.quirks, DEFAULT_QUIRKS);
  }
});

Deno.test("resolveApiKey(): ODEK_API_KEY, then the preset's variable, then OPENAI_API_KEY", async (t) => {
  const groq = PROVIDER_PRESETS.groq;
  const cases: [string, Record<string, string>, typeof groq | undefined, string | undefined][] = [
    ["ODEK_API_KEY wins", { ODEK_API_KEY: "o", GROQ_API_KEY: "g", OPENAI_API_KEY: "p" }, groq, "o"],
    ["the preset's variable next", { GROQ_API_KEY: "g", OPENAI_API_KEY: "p" }, groq, "g"],
    ["OPENAI_API_KEY last", { OPENAI_API_KEY: "p" }, groq, "p"],
    [
      "empty values count as unset",
      { ODEK_API_KEY: "", GROQ_API_KEY: "", OPENAI_API_KEY: "p" },
      groq,
      "p",
    ],
    ["another preset's variable is not read", { MISTRAL_API_KEY: "m" }, groq, undefined],
    ["no preset", { GROQ_API_KEY: "g", OPENAI_API_KEY: "p" }, undefined, "p"],
    ["a local preset without a variable", { OPENAI_API_KEY: "p" }, PROVIDER_PRESETS.ollama, "p"],
    ["nothing set", {}, groq, undefined],
  ];
  for (const [name, env, preset, expected] of cases) {
    await t.step(name, () => {
      const choice = resolveApiKey(env, preset);
      assert.equal(choice.key, expected);
      if (expected !== undefined) assert.equal(env[choice.variable!], expected);
    });
  }
  assert.deepEqual(resolveApiKey({}, groq).searched, [
    "ODEK_API_KEY",
    "GROQ_API_KEY",
    "OPENAI_API_KEY",
  ]);
  assert.deepEqual(resolveApiKey({}, PROVIDER_PRESETS.openai).searched, [
    "ODEK_API_KEY",
    "OPENAI_API_KEY",
  ]);
});

Deno.test("resolveConfig(): a preset sets its base URL unless the same or a later layer sets one", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "odek-presets-" });
  try {
    const file = join(dir, "config.jsonc");
    const resolve = (env: Record<string, string>, flags = {}) =>
      resolveConfig({ configFile: file, env, flags });
    await t.step("config provider alone", async () => {
      await Deno.writeTextFile(file, JSON.stringify({ provider: "deepseek" }));
      const config = await resolve({});
      assert.equal(config.provider, "deepseek");
      assert.equal(config.baseUrl, "https://api.deepseek.com");
    });
    await t.step("--base-url overrides a preset", async () => {
      const config = await resolve({}, { provider: "groq", baseUrl: "http://127.0.0.1:9/v1" });
      assert.equal(config.provider, "groq");
      assert.equal(config.baseUrl, "http://127.0.0.1:9/v1");
    });
    await t.step("a later --provider wins over an earlier baseUrl", async () => {
      await Deno.writeTextFile(file, JSON.stringify({ baseUrl: "http://127.0.0.1:9/v1" }));
      const config = await resolve({}, { provider: "mistral" });
      assert.equal(config.baseUrl, "https://api.mistral.ai/v1");
    });
    await t.step("ODEK_PROVIDER wins over OPENAI_BASE_URL, not over ODEK_BASE_URL", async () => {
      await Deno.writeTextFile(file, "{}");
      const shared = { ODEK_PROVIDER: "groq", OPENAI_BASE_URL: "http://127.0.0.1:7/v1" };
      assert.equal((await resolve(shared)).baseUrl, "https://api.groq.com/openai/v1");
      const own = { ...shared, ODEK_BASE_URL: "http://127.0.0.1:8/v1" };
      assert.equal((await resolve(own)).baseUrl, "http://127.0.0.1:8/v1");
    });
    await t.step("auto changes nothing", async () => {
      const config = await resolve({}, { provider: "auto" });
      assert.equal(config.baseUrl, DEFAULT_CONFIG.baseUrl);
    });
    await t.step("an unknown name is refused, naming the flag and the choices", async () => {
      await assert.rejects(
        () => resolve({}, { provider: "openia" }),
        /flag --provider at "provider": got "openia", expected one of "auto", "openai",/,
      );
      await assert.rejects(
        () => resolve({ ODEK_PROVIDER: "nope" }),
        /environment variable ODEK_PROVIDER/,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("knownContextWindow() and contextWindowFor(): known models, explicit settings first", () => {
  const known: [string, number | undefined][] = [
    ["gpt-4.1", 1_047_576],
    ["gpt-4.1-mini-2025-04-14", 1_047_576],
    ["openai/gpt-4o-mini", 128_000],
    ["gpt-5", 400_000],
    ["gpt-5-chat-latest", 128_000],
    ["gpt-5.1-chat-latest", 128_000],
    ["o4-mini", 200_000],
    ["anthropic/claude-sonnet-4-20250514", 200_000],
    ["models/gemini-2.5-pro", 1_048_576],
    ["gpt-4.10", undefined],
    ["deepseek-chat", undefined],
    ["llama3.1:8b", undefined],
  ];
  for (const [model, window] of known) assert.equal(knownContextWindow(model), window, model);
  const config = { ...DEFAULT_CONFIG, models: { "gpt-4o": { contextWindow: 50_000 } } };
  assert.equal(contextWindowFor(config, "gpt-4o"), 50_000, "models.<id> first");
  assert.equal(contextWindowFor(config, "gpt-4.1"), 1_047_576, "then the table");
  assert.equal(contextWindowFor(config, "my-local-model"), 128_000, "then the fallback");
  assert.equal(contextWindowFor({ ...config, contextWindow: 8192 }, "gpt-4.1"), 8192);
});
