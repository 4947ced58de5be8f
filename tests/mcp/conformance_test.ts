// The MCP conformance suite's core client scenarios against odek, one step each (the full matrix
// of both suite versions is tests/slow/mcp_conformance_matrix_test.ts, in `deno task test:slow`).
import assert from "node:assert/strict";
import {
  expectedFailures,
  runScenario,
  suitePackage,
  SUITES,
  summary,
} from "./conformance/_run_scenario.ts";

/** The scenarios every run of the main suite checks, per revision. */
const CORE: Record<string, string[]> = {
  "2025-11-25": [
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/scope-step-up",
  ],
  "2026-07-28": [
    "tools_call",
    "request-metadata",
    "sep-2322-client-request-state",
    "http-custom-headers",
    "auth/iss-supported",
  ],
};

for (const { revision, variable } of SUITES) {
  const suite = suitePackage(variable);
  if ("skip" in suite) console.error(suite.skip);
  Deno.test({
    name: `MCP conformance ${revision}: odek passes the core client scenarios`,
    ignore: "skip" in suite,
    async fn(t) {
      const pkg = (suite as { pkg: string }).pkg;
      const expected = await expectedFailures(revision);
      for (const scenario of CORE[revision]) {
        assert.ok(!expected.has(scenario), `${scenario} is a core scenario: it must pass`);
        await t.step(scenario, async () => {
          const run = await runScenario(pkg, revision, scenario);
          assert.equal(run.code, 0, `${pkg} ${scenario}:\n${summary(run)}`);
          assert.match(run.output, /OVERALL: PASSED/, summary(run));
        });
      }
    },
  });
}
