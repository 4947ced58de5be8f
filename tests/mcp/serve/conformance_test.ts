// The MCP conformance suites' core server scenarios against `odek mcp serve --http`, one step
// each (every server scenario of both suite versions is tests/slow/mcp_server_conformance_matrix_test.ts,
// in `deno task test:slow`). The runner reaches the server through its token URL on 127.0.0.1.
import assert from "node:assert/strict";
import {
  expectedFailures,
  runServerScenario,
  suitePackage,
  SUITES,
  summary,
} from "../conformance/_run_scenario.ts";
import { CONFORMANCE_SERVER, httpServe, serveFixture } from "./_serve_fixture.ts";

/** The server scenarios every run of the main suite checks, per revision. */
const CORE: Record<string, string[]> = {
  "2025-11-25": [
    "server-initialize",
    "ping",
    "tools-list",
    "logging-set-level",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
  ],
  "2026-07-28": [
    "server-initialize",
    "server-session-lifecycle",
    "tools-list",
    "http-header-validation",
    "dns-rebinding-protection",
  ],
};

/**
 * Scenarios calling the suite's fixture tools that odek can host, run against serveMcp() with
 * them added as a tool provider (tests/mcp/serve/_conformance_tools.ts).
 */
const WITH_FIXTURE_TOOLS: Record<string, string[]> = {
  "2025-11-25": [
    "tools-call-simple-text",
    "tools-call-error",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
  ],
  "2026-07-28": [],
};

for (const { revision, variable } of SUITES) {
  const suite = suitePackage(variable);
  if ("skip" in suite) console.error(suite.skip);
  Deno.test({
    name: `MCP conformance ${revision}: odek mcp serve --http passes the core server scenarios`,
    ignore: "skip" in suite,
    async fn(t) {
      const pkg = (suite as { pkg: string }).pkg;
      const expected = await expectedFailures(revision, "server");
      await using f = await serveFixture([]);
      for (
        const [scenarios, script] of [[CORE, undefined], [
          WITH_FIXTURE_TOOLS,
          CONFORMANCE_SERVER,
        ]] as const
      ) {
        if (scenarios[revision].length === 0) continue;
        await using s = await httpServe(f, [], script);
        for (const scenario of scenarios[revision]) {
          assert.ok(!expected.has(scenario), `${scenario} is a core scenario: it must pass`);
          await t.step(scenario, async () => {
            const run = await runServerScenario(pkg, revision, scenario, s.tokenUrl);
            assert.equal(run.code, 0, `${pkg} ${scenario}:\n${summary(run)}`);
            assert.doesNotMatch(run.output, /FAILURE|WARNING/, summary(run));
          });
        }
      }
    },
  });
}
