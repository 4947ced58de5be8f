import assert from "node:assert/strict";
import { join } from "node:path";
// @ts-types="@types/pg"
import pg from "pg";
import { processesWith, uniqueSleep } from "../broker/_processes.ts";
import { durableFixture, postgresMissing, waitFor } from "./_durable_fixture.ts";
import { readRunEvents, type SseRunEvent } from "./_sse.ts";

const missing = postgresMissing();
if (missing) console.log(`durable event tests skipped: ${missing}`);

/** The ids are `<key>:<seq>`, seq 1, 2, 3, … with no gap and no repeat. */
function assertGapless(key: string, events: SseRunEvent[], from = 1): void {
  events.forEach(({ sseId, event }, index) => {
    const seq = from + index;
    assert.equal(event.seq, seq, `event ${index}: ${JSON.stringify(event)}`);
    assert.equal(event.run_id, key);
    assert.equal(event.id, `${key}:${seq}`);
    assert.equal(sseId, event.id);
  });
}

Deno.test({
  name:
    "durable runs: serve streams a queued run's events in order with no gap across a worker takeover, and a resume loses nothing",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const sleep = uniqueSleep();
    await using fx = await durableFixture((task) =>
      task === "slow" ? `echo started >> started.txt; ${sleep}` : `echo ${task} > out.txt`
    );
    const a = fx.worker("worker-a", ["--lease", "5"]);
    const b = fx.worker("worker-b", ["--lease", "5"]);
    const api = await fx.serve();
    const workspace = await fx.workspace("slow");
    const started = await api("/api/runs", {
      task: "task slow",
      session_id: "s-slow",
      workspace,
    });
    assert.equal(started.status, 202, await started.clone().text());
    const key: string = (await started.json()).key;

    // A watcher from the start: it sees the killed worker's part, then the new worker's.
    const live = readRunEvents(await api(`/api/runs/${key}/events`));
    await waitFor("the slow call to start", async () => {
      const text = await Deno.readTextFile(join(workspace, "started.txt")).catch(() => "");
      return text.includes("started") ? true : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    // A watcher that goes away after three events, and comes back with Last-Event-ID while the
    // run is between its workers.
    const partial = await readRunEvents(await api(`/api/runs/${key}/events`), 3);
    const owner = await waitFor(
      "the run's worker",
      async () => (await fx.queue.status(key))?.workerId,
    );
    (owner === "worker-a" ? a : b).kill("SIGKILL");
    await (owner === "worker-a" ? a : b).status;
    for (const pid of processesWith(sleep)) Deno.kill(pid, "SIGKILL");
    const resumed = readRunEvents(
      await api(`/api/runs/${key}/events`, undefined, { "last-event-id": partial.at(-1)!.sseId }),
    );

    const result = await fx.queue.wait(key);
    assert.equal(result.outcome, "completed", JSON.stringify(result) + fx.logs.join(""));
    assert.notEqual(result.workerId, owner);
    const seen = await live;
    assertGapless(key, seen);
    assert.deepEqual([...partial, ...await resumed].map((e) => e.event), seen.map((e) => e.event));
    const types = seen.map((e) => e.event.type);
    assert.equal(types[0], "run_started");
    assert.equal(types.at(-1), "run_completed");
    assert.equal(types.filter((t) => t === "run_started").length, 1, types.join());
    assert.equal(types.filter((t) => t === "run_completed" || t === "run_failed").length, 1);
    const ofCall = (type: string) =>
      seen.filter((e) =>
        e.event.type === type && (e.event.data as { call_id?: string }).call_id === "call-slow"
      );
    // The call started once (on the killed worker) and ended once, interrupted (on the new one).
    assert.equal(ofCall("tool_call_started").length, 1, types.join());
    const ends = [...ofCall("tool_call_completed"), ...ofCall("tool_call_failed")];
    assert.equal(ends.length, 1, types.join());
    assert.match(JSON.stringify(ends[0].event.data), /interrupted/);
    assert.ok(ofCall("tool_call_started")[0].event.seq < ends[0].event.seq);
    assert.equal(seen.filter((e) => e.event.type === "assistant_message").length, 2, types.join());

    // Both workers published: the rows name them, in the order of the stream.
    const pool = new pg.Pool({ connectionString: fx.url, max: 1 });
    try {
      const rows = await pool.query(
        `SELECT worker_id FROM odek.run_events WHERE stream = $1 ORDER BY seq`,
        [key],
      );
      const workers = rows.rows.map((row) => row.worker_id as string);
      assert.equal(workers.length, seen.length);
      const cut = workers.findIndex((w) => w !== owner);
      assert.ok(cut > 0, workers.join());
      assert.ok(workers.slice(cut).every((w) => w === result.workerId), workers.join());
    } finally {
      await pool.end();
    }

    // Replayed after the end: the same events; a client that went away and resumes after the
    // last id it saw (an SSE client's Last-Event-ID, or ?after=) gets exactly the rest.
    const again = await readRunEvents(await api(`/api/runs/${key}/events`));
    assert.deepEqual(again.map((e) => e.event), seen.map((e) => e.event));
    const firstPart = await readRunEvents(await api(`/api/runs/${key}/events`), 3);
    const rest = await readRunEvents(
      await api(`/api/runs/${key}/events`, undefined, { "last-event-id": firstPart.at(-1)!.sseId }),
    );
    assert.deepEqual([...firstPart, ...rest].map((e) => e.event), seen.map((e) => e.event));
    const restByQuery = await readRunEvents(
      await api(`/api/runs/${key}/events?after=${encodeURIComponent(firstPart.at(-1)!.sseId)}`),
    );
    assert.deepEqual(restByQuery.map((e) => e.event), rest.map((e) => e.event));
    const fromSeq = await readRunEvents(await api(`/api/runs/${key}/events?after=5`));
    assertGapless(key, fromSeq, 6);

    // Serve's record and stream of all runs had them too (the page's live view follows those).
    const record = await waitFor("serve's record", async () => {
      const body = await (await api(`/api/runs/${key}`)).json();
      return body.state === "running" ? undefined : body;
    });
    assert.equal(record.state, "completed");
  },
});
