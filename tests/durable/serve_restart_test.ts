import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@types/pg"
import pg from "pg";
import { durableFixture, postgresMissing, taskOf, waitFor } from "./_durable_fixture.ts";

const missing = postgresMissing();
if (missing) console.log(`durable serve restart tests skipped: ${missing}`);

Deno.test({
  name:
    "durable runs: a serve restarted while its queued run goes follows that run under the same key; no second workflow starts",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // The call waits for a file the test writes once the first serve is gone.
    await using fx = await durableFixture(() =>
      "while [ ! -e ../go ]; do sleep 0.05; done; echo slow >> out.txt"
    );
    fx.worker("solo");
    const first = await fx.serve("api");
    const workspace = await fx.workspace("slow");
    const started = await first("/api/runs", {
      task: "task slow",
      session_id: "s-slow",
      workspace,
    });
    assert.equal(started.status, 202, await started.clone().text());
    const key: string = (await started.json()).key;
    await waitFor("the run going on the worker", async () => {
      const status = await fx.queue.status(key);
      return status?.state === "running" ? status : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });

    await fx.stopServes();
    const again = await fx.serve("api"); // the same server home: its run records
    await Deno.writeTextFile(join(fx.root, "ws", "go"), "");
    const record = await waitFor("the run's end on the restarted serve", async () => {
      const body = await (await again(`/api/runs/${key}`)).json();
      return body.state === "completed" ? body : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.equal(record.summary, "done slow");
    const pool = new pg.Pool({ connectionString: fx.url });
    try {
      const runs = await pool.query(
        `SELECT run_id FROM odek.runs WHERE session_id = 's-slow' ORDER BY run_id`,
      );
      assert.deepEqual(runs.rows, [{ run_id: key }], "one workflow for the run");
    } finally {
      await pool.end();
    }
    assert.equal((await Deno.readTextFile(join(workspace, "out.txt"))).trim(), "slow");
    assert.equal(fx.model.requests.filter((r) => taskOf(r) === "slow").length, 2);
    const list = (await (await again("/api/runs")).json()).runs as { key: string }[];
    assert.deepEqual(list.map((r) => r.key).filter((k) => k.startsWith("q-")), [key]);
  },
});
