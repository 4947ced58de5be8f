/**
 * A run's result comes off the queue checked (`queuedRunResult`): the failing input — a row whose
 * result another writer (or another version) left was handed on unchecked, and serve showed or
 * followed whatever it held.
 */
import assert from "node:assert/strict";
import pg from "pg";
import { OdekError } from "../../src/_util/odek_error.ts";
import { queuedRunResult } from "../../src/durable/queued_run.ts";
import { durableFixture, postgresMissing } from "./_durable_fixture.ts";

const GOOD = {
  runId: "r1",
  sessionId: "s1",
  outcome: "awaiting_approval",
  text: "",
  workerId: "w1",
  approval: {
    id: "call-1",
    calls: [{ callId: "call-1", toolName: "shell", args: { command: "git push" }, reason: "net" }],
  },
  warnings: ["a warning"],
};

Deno.test("queuedRunResult keeps a worker's result and refuses what is not one, naming the run", () => {
  assert.deepEqual(queuedRunResult(GOOD, "r1"), GOOD);
  for (
    const bad of [
      null,
      "completed",
      { ...GOOD, outcome: 3 },
      { ...GOOD, text: undefined },
      { ...GOOD, approval: { id: "call-1", calls: "all" } },
      { ...GOOD, warnings: [1] },
      { ...GOOD, git: { repository: "/srv/r.git", ref: "main" } },
    ]
  ) {
    assert.throws(
      () => queuedRunResult(bad, "r1"),
      (error: unknown) =>
        error instanceof OdekError && error.code === "QUEUE_RESULT_INVALID" &&
        /run r1/.test(error.message),
      JSON.stringify(bad),
    );
  }
});

const missing = postgresMissing();
if (missing) console.log(`durable queued-result tests skipped: ${missing}`);

Deno.test({
  name: "QueueClient.status() and approvals() refuse a row whose result is not a run's result",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using fx = await durableFixture(() => "true");
    const workspace = await fx.workspace("rows");
    await fx.queue.enqueue({ runId: "bad-1", sessionId: "s-bad", task: "t", workspace });
    const pool = new pg.Pool({ connectionString: fx.url, max: 1 });
    try {
      const write = (result: unknown) =>
        pool.query(
          "UPDATE odek.runs SET state = 'awaiting_approval', result = $1 WHERE run_id = 'bad-1'",
          [JSON.stringify(result)],
        );
      await write({ ...GOOD, runId: "bad-1" });
      assert.equal((await fx.queue.status("bad-1"))?.result?.approval?.id, "call-1");
      await write({ outcome: "completed", text: 42 });
      const invalid = (error: unknown) =>
        error instanceof OdekError && error.code === "QUEUE_RESULT_INVALID" &&
        /run bad-1/.test(error.message);
      await assert.rejects(fx.queue.status("bad-1"), invalid);
      await assert.rejects(fx.queue.approvals(), invalid);
    } finally {
      await pool.end();
    }
  },
});
