/**
 * A queued run's warnings reach its result, the worker's log and serve's record — the failing
 * input: a worker's host warnings (here a project key ignored) were dropped on the worker.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { durableFixture, postgresMissing, waitFor } from "./_durable_fixture.ts";

const missing = postgresMissing();
if (missing) console.log(`durable warning tests skipped: ${missing}`);

Deno.test({
  name:
    "durable runs: the worker's host warnings are in the run's result, its log and serve's record",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using fx = await durableFixture((task) => `echo ${task} > out.txt`);
    fx.worker("worker-w");
    const api = await fx.serve();
    const workspace = await fx.workspace("warned");
    // A project file may not raise its own trust: the key is ignored, with a warning.
    await Deno.writeTextFile(join(workspace, "odek.jsonc"), '{ "trustLevel": "trusted" }');
    const started = await api("/api/runs", { task: "task warned", session_id: "s-w", workspace });
    assert.equal(started.status, 202, await started.clone().text());
    const key: string = (await started.json()).key;
    const result = await fx.queue.wait(key);
    assert.equal(result.outcome, "completed", JSON.stringify(result) + fx.logs.join(""));
    const ignored = /odek\.jsonc: "trustLevel" ignored/;
    assert.ok(result.warnings?.some((w) => ignored.test(w)), JSON.stringify(result.warnings));
    assert.ok(
      fx.logs.join("").includes(`run ${key}: warning: `),
      `the worker's log: ${fx.logs.join("")}`,
    );
    const record = await waitFor("serve's record of the run's end", async () => {
      const json: { state: string; warnings?: string[] } = await (await api(`/api/runs/${key}`))
        .json();
      return json.state === "completed" ? json : undefined;
    });
    assert.ok(record.warnings?.some((w) => ignored.test(w)), JSON.stringify(record));
  },
});
