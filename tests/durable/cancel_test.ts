import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@types/pg"
import pg from "pg";
import { processesWith, uniqueSleep } from "../broker/_processes.ts";
import { durableFixture, postgresMissing, taskOf, waitFor } from "./_durable_fixture.ts";
import { readRunEvents } from "./_sse.ts";

const missing = postgresMissing();
if (missing) console.log(`durable cancel tests skipped: ${missing}`);

Deno.test({
  name:
    "durable runs: cancelling a queued run through serve stops its tool call on the worker, frees the slot, and no recovery takes it up again",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const sleep = uniqueSleep();
    // The long call notes that it started, sleeps, and would note that it finished.
    await using fx = await durableFixture((task) =>
      task === "long"
        ? `echo started >> marks.txt; ${sleep}; echo finished >> marks.txt`
        : `echo ${task} > out.txt`
    );
    const solo = fx.worker("solo", ["--concurrency", "1", "--lease", "5"]);
    const api = await fx.serve();
    const long = await fx.workspace("long");
    const started = await api("/api/runs", {
      task: "task long",
      session_id: "s-long",
      workspace: long,
    });
    assert.equal(started.status, 202, await started.clone().text());
    const key: string = (await started.json()).key;
    await waitFor("the long call to start", async () => {
      const text = await Deno.readTextFile(join(long, "marks.txt")).catch(() => "");
      return text.includes("started") ? true : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.ok(processesWith(sleep).length > 0, "the call runs");

    const cancelled = await api(`/api/runs/${key}/cancel`, {});
    assert.equal(cancelled.status, 202, await cancelled.clone().text());
    const record = await waitFor("the cancelled run's end", async () => {
      const body = await (await api(`/api/runs/${key}`)).json();
      return body.state === "running" ? undefined : body;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.equal(record.state, "interrupted", JSON.stringify(record));
    assert.equal(record.error_code, "INTERRUPTED");
    assert.match(record.summary, /cancelled over the API/);
    // The worker stopped the call: its process is gone, it never finished.
    await waitFor(
      "the call's process to end",
      () => Promise.resolve(processesWith(sleep).length === 0 ? true : undefined),
      20_000,
    );
    // The session's journal records the call's end and the reason.
    const { messages } = await fx.queue.sessions.read("s-long");
    const tool = messages.find((m) => m.role === "tool");
    assert.ok(tool, JSON.stringify(messages));
    assert.match(String(tool.content), /interrupted|cancel/i, String(tool.content));
    const status = await fx.queue.status(key);
    assert.equal(status?.state, "interrupted");
    assert.match(status?.result?.text ?? "", /cancelled over the API/);
    // The watcher's stream ends with the run's end.
    const events = await readRunEvents(await api(`/api/runs/${key}/events`));
    assert.equal(events.at(-1)?.event.type, "run_failed", events.map((e) => e.event.type).join());
    // A second cancel: the run has ended.
    const again = await api(`/api/runs/${key}/cancel`, {});
    assert.equal(again.status, 409);
    await again.body?.cancel();

    // The slot is free: with one slot, the next run completes.
    const quick = await fx.workspace("quick");
    const next = await api("/api/runs", {
      task: "task quick",
      session_id: "s-quick",
      workspace: quick,
    });
    const nextKey: string = (await next.json()).key;
    assert.equal((await fx.queue.wait(nextKey)).outcome, "completed");

    // The engine has it cancelled; a worker that takes over the dead worker's runs leaves it.
    const pool = new pg.Pool({ connectionString: fx.url, max: 1 });
    try {
      const row = await pool.query(
        `SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1`,
        [key],
      );
      assert.equal(row.rows[0]?.status, "CANCELLED");
    } finally {
      await pool.end();
    }
    const asked = fx.model.requests.filter((r) => taskOf(r) === "long").length;
    solo.kill("SIGKILL");
    await solo.status;
    fx.worker("heir", ["--lease", "5"]);
    await waitFor(
      "the takeover",
      () => Promise.resolve(fx.logs.join("").includes("took over solo") ? true : undefined),
      60_000,
    )
      .catch((error) => {
        throw new Error(`${error.message}\n${fx.logs.join("")}`);
      });
    assert.match(fx.logs.join(""), /took over solo \(0 runs back on the queue\)/);
    assert.equal((await fx.queue.status(key))?.state, "interrupted");
    assert.equal(fx.model.requests.filter((r) => taskOf(r) === "long").length, asked);
    assert.equal((await Deno.readTextFile(join(long, "marks.txt"))).trim(), "started");
  },
});
