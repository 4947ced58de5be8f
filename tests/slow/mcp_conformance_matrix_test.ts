// Every client scenario of both pinned MCP conformance suites against odek, one step each; the
// expected failures (each with its reason) are in tests/mcp/conformance/expected_failures_*.yml.
import assert from "node:assert/strict";
import {
  clientScenarios,
  expectedFailures,
  runScenario,
  suitePackage,
  SUITES,
  summary,
} from "../mcp/conformance/_run_scenario.ts";
import { SLOW } from "./_slow.ts";

for (const { revision, variable } of SUITES) {
  const suite = suitePackage(variable);
  if ("skip" in suite) console.error(suite.skip);
  Deno.test({
    name:
      `MCP conformance ${revision}: every client scenario (expected failures listed with reasons)`,
    ignore: !SLOW || "skip" in suite,
    async fn(t) {
      const pkg = (suite as { pkg: string }).pkg;
      const expected = await expectedFailures(revision);
      const scenarios = await clientScenarios(pkg);
      assert.ok(scenarios.length >= 10, `the suite listed ${scenarios.join(", ")}`);
      for (const name of expected.keys()) {
        assert.ok(scenarios.includes(name), `expected failure ${name} is not a scenario of ${pkg}`);
      }
      for (const scenario of scenarios) {
        const why = expected.get(scenario);
        await t.step(why ? `${scenario} (expected to fail: ${why})` : scenario, async () => {
          const run = await runScenario(pkg, revision, scenario);
          assert.equal(run.code, 0, `${pkg} ${scenario}:\n${summary(run)}`);
        });
      }
    },
  });
}
