import assert from "node:assert/strict";
import { runtimeFixture } from "./_runtime_fixture.ts";

// The failing input: `odek continue` on a machine without bwrap silently dropped the "shell
// disabled" warning that `odek run` printed. Both now open their host through one code path.
Deno.test("a new and a continued session host both warn that the shell is disabled without bwrap", async () => {
  const empty = await Deno.makeTempDir(); // a PATH with no bwrap on it
  try {
    await using f = await runtimeFixture({
      sandbox: "bwrap",
      env: { PATH: empty },
      scripts: [[{ text: "done" }], [{ text: "done again" }]],
    });
    const workspace = await f.workspace("ws");
    const first = await f.runtime.openSession({ task: "t", sessionId: "s1" }, { workspace });
    await first.ready(); // the sandbox's warnings come once it is up
    const shellDisabled = /bwrap is not installed, so the shell tool is disabled/;
    assert.ok(first.warnings.some((w) => shellDisabled.test(w)), first.warnings.join("\n"));
    assert.equal((await (await first.startRun()).result).type, "completed");
    await first.close();
    await using again = await f.runtime.openSession({ sessionId: "s1" });
    await again.ready();
    assert.ok(again.warnings.some((w) => shellDisabled.test(w)), again.warnings.join("\n"));
  } finally {
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("a cost budget without the model's prices is a warning of the run, and the run goes on", async () => {
  await using f = await runtimeFixture({ scripts: [[{ text: "done" }]] });
  await using host = await f.runtime.openSession({ task: "t" }, {
    workspace: await f.workspace("ws"),
  });
  const run = await host.startRun({ budgets: { maxCostUsd: 0.01 } });
  assert.match(run.warnings.join("\n"), /the cost budget \(\$0\.01\) is not enforced/);
  assert.equal((await run.result).type, "completed");
});
