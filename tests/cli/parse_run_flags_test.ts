import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import { parseDurationSeconds } from "../../src/cli/parse_duration_seconds.ts";
import { parseRunFlags } from "../../src/cli/parse_run_flags.ts";
import { resolveConfig } from "../../src/config/resolve_config.ts";

Deno.test("parseRunFlags() turns the budget flags into the budgets config layer", () => {
  const flags = parseRunFlags([
    "--max-runtime",
    "5m",
    "--max-tool-calls",
    "40",
    "--max-input-tokens",
    "200000",
    "--max-output-tokens",
    "8000",
    "--max-cost-usd",
    "2.50",
    "--events-jsonl",
    "audit/events.jsonl",
    "task",
  ], "run");
  assert.deepEqual(flags.layer.budgets, {
    maxRuntimeSeconds: 300,
    maxToolCalls: 40,
    maxInputTokens: 200_000,
    maxOutputTokens: 8000,
    maxCostUsd: 2.5,
  });
  assert.equal(flags.eventsJsonl, "audit/events.jsonl");
  assert.deepEqual(parseRunFlags(["--max-runtime", "0"], "continue").layer.budgets, {
    maxRuntimeSeconds: 0,
  });
});

Deno.test("parseRunFlags() refuses malformed budgets with exit-2 usage errors", async (t) => {
  for (
    const [flag, value, pattern] of [
      [
        "--max-runtime",
        "soon",
        /--max-runtime takes a duration such as 90, 90s, 5m or 2h, got "soon"/,
      ],
      ["--max-runtime", "-5", /--max-runtime/],
      ["--max-tool-calls", "1.5", /--max-tool-calls takes a whole number, got "1.5"/],
      ["--max-cost-usd", "$3", /--max-cost-usd takes an amount in US dollars/],
      ["--max-input-tokens", "1e6", /--max-input-tokens takes a whole number/],
    ] as const
  ) {
    await t.step(`${flag} ${value}`, () => {
      assert.throws(
        () => parseRunFlags([flag, value, "task"], "run"),
        (e) => e instanceof OdekError && e.code === "USAGE" && pattern.test(e.message),
      );
    });
  }
});

Deno.test("parseDurationSeconds() reads seconds, minutes, hours and refuses the rest", () => {
  assert.equal(parseDurationSeconds("90"), 90);
  assert.equal(parseDurationSeconds("90s"), 90);
  assert.equal(parseDurationSeconds("5m"), 300);
  assert.equal(parseDurationSeconds("2h"), 7200);
  assert.equal(parseDurationSeconds("1h30m"), 5400);
  assert.equal(parseDurationSeconds("1.5m"), 90);
  assert.equal(parseDurationSeconds("0.2"), 1, "never shorter than asked");
  for (const bad of ["", "m", "5d", "5m1h", "-1", "1 h"]) {
    assert.throws(() => parseDurationSeconds(bad), SyntaxError, bad);
  }
});

Deno.test("budget flags win over the config file and the environment; a bad flag value names the flag", async () => {
  const config = await resolveConfig({
    configFile: "/nonexistent/config.jsonc",
    env: { ODEK_MAX_TOOL_CALLS: "9", ODEK_MAX_COST_USD: "0.75" },
    flags: parseRunFlags(["--max-tool-calls", "3"], "run").layer,
  });
  assert.equal(config.budgets.maxToolCalls, 3);
  assert.equal(config.budgets.maxCostUsd, 0.75);
  assert.equal(config.budgets.maxRuntimeSeconds, 0);
  await assert.rejects(
    resolveConfig({
      configFile: "/nonexistent/config.jsonc",
      env: {},
      flags: parseRunFlags(["--max-runtime", "9999999999"], "run").layer,
    }),
    (e) => e instanceof OdekError && e.code === "USAGE" && /--max-runtime/.test(e.message),
  );
});

Deno.test("parseRunFlags() collects every --add-dir in order and keeps the :ro suffix for the parser", () => {
  const flags = parseRunFlags(["--add-dir", "../cache", "--add-dir=/srv/ref:ro", "task"], "run");
  assert.deepEqual(flags.addDirs, ["../cache", "/srv/ref:ro"]);
  assert.deepEqual(parseRunFlags(["task"], "run").addDirs, []);
  assert.deepEqual(parseRunFlags(["--add-dir", "/x"], "continue").addDirs, ["/x"]);
});

Deno.test("parseRunFlags() turns --dedicated-workspace into the config layer's dedicatedWorkspace", () => {
  const flags = parseRunFlags(["--dedicated-workspace", "task"], "run");
  assert.equal(flags.dedicatedWorkspace, true);
  assert.equal(flags.layer.dedicatedWorkspace, true);
  const plain = parseRunFlags(["task"], "run");
  assert.equal(plain.dedicatedWorkspace, false);
  assert.equal(plain.layer.dedicatedWorkspace, undefined, "absent flag must not override config");
});

Deno.test("parseRunFlags() refuses --workspace together with --dedicated-workspace", () => {
  assert.throws(
    () => parseRunFlags(["--workspace", "/w", "--dedicated-workspace", "task"], "run"),
    (error: OdekError) => error.code === "USAGE" && /pass one/.test(error.message),
  );
});

Deno.test("parseRunFlags() refuses an empty --events-jsonl instead of ignoring it", () => {
  assert.throws(
    () => parseRunFlags(["--events-jsonl", "", "task"], "run"),
    (error: unknown) =>
      error instanceof OdekError && error.code === "USAGE" &&
      /--events-jsonl takes a file path, got an empty one/.test(error.message),
  );
  assert.equal(parseRunFlags(["--events-jsonl", "e.jsonl", "task"], "run").eventsJsonl, "e.jsonl");
});
