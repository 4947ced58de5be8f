// Every server scenario of both pinned MCP conformance suites against `odek mcp serve --http`
// (one step each; the core ones also run in the main suite, tests/mcp/serve/conformance_test.ts).
// The server is serveMcp() with the suite's fixture tools that odek can host added as a tool
// provider (tests/mcp/serve/_conformance_tools.ts); scenarios needing other fixture tools, prompts
// or resources are expected failures, with their reasons, in
// tests/mcp/conformance/expected_failures_<revision>.yml (section `server:`).
import assert from "node:assert/strict";
import {
  expectedFailures,
  runServerScenario,
  serverScenarios,
  suitePackage,
  SUITES,
  summary,
} from "../mcp/conformance/_run_scenario.ts";
import { CONFORMANCE_SERVER, httpServe, serveFixture } from "../mcp/serve/_serve_fixture.ts";

for (const { revision, variable } of SUITES) {
  const suite = suitePackage(variable);
  if ("skip" in suite) console.error(suite.skip);
  Deno.test({
    name: `MCP conformance ${revision}: every server scenario against odek mcp serve --http`,
    ignore: "skip" in suite,
    async fn(t) {
      const pkg = (suite as { pkg: string }).pkg;
      const expected = await expectedFailures(revision, "server");
      await using f = await serveFixture([]);
      await using s = await httpServe(f, [], CONFORMANCE_SERVER);
      for (const scenario of await serverScenarios(pkg)) {
        await t.step(scenario, async () => {
          const run = await runServerScenario(pkg, revision, scenario, s.tokenUrl);
          const why = expected.get(scenario);
          assert.equal(
            run.code,
            0,
            `${pkg} ${scenario}${why ? ` (expected to fail: ${why})` : ""}:\n${summary(run)}`,
          );
        });
      }
    },
  });
}
