import assert from "node:assert/strict";
import { join } from "node:path";
import { durableFixture, postgresMissing, taskOf, waitFor } from "./_durable_fixture.ts";
import { readRunEvents } from "./_sse.ts";

const missing = postgresMissing();
if (missing) console.log(`durable approval REST tests skipped: ${missing}`);

interface PendingJson {
  id: string;
  type: string;
  session_id: string;
  calls: {
    call_id: string;
    tool_name: string;
    risk_classes: string[];
    preview: string;
    reason: string;
  }[];
}

Deno.test({
  name:
    "durable runs: a queued run's approval is shown and answered over serve's REST API (any serve of the queue); the run goes on as one run",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // "ask" writes next to its workspace (a scratch file of the fixture): the verdict asks.
    const ask = "echo yes > ../outside.txt";
    await using fx = await durableFixture((task) =>
      task === "ask" ? ask : `echo ${task} > out.txt`
    );
    fx.worker("solo", ["--concurrency", "1"]);
    const one = await fx.serve("one");
    const two = await fx.serve("two"); // another serve of the queue: it did not start the run
    const workspace = await fx.workspace("ask");
    const started = await one("/api/runs", { task: "task ask", session_id: "s-ask", workspace });
    assert.equal(started.status, 202, await started.clone().text());
    const key: string = (await started.json()).key;

    const pendingOn = async (
      api: typeof one,
    ) => ((await (await api("/api/approvals")).json()).pending as PendingJson[]);
    const [pending] = await waitFor("the approval on the other serve", async () => {
      const got = await pendingOn(two);
      return got.length > 0 ? got : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.match(pending.id, /^apr-[0-9a-f]{16}$/);
    assert.equal(pending.type, "approval");
    assert.equal(pending.session_id, "s-ask");
    assert.equal(pending.calls.length, 1);
    const [call] = pending.calls;
    assert.equal(call.call_id, "call-ask");
    assert.equal(call.tool_name, "shell");
    assert.equal(call.preview, ask, "the exact command");
    assert.ok(call.risk_classes.length > 0, JSON.stringify(call));
    assert.ok(call.reason.length > 0);
    // The same approval, under the same id, on the serve that started the run.
    const onOne = await waitFor("the approval on the first serve", async () => {
      const got = await pendingOn(one);
      return got.length > 0 ? got : undefined;
    });
    assert.deepEqual(onOne, [pending]);
    // The run waits, as a local run waiting for approval does: still going, not ended.
    assert.equal((await (await one(`/api/runs/${key}`)).json()).state, "running");
    await assert.rejects(Deno.stat(join(fx.root, "ws", "outside.txt")));

    const unknown = await two("/api/approvals/apr-0000000000000000", {
      decisions: [{ call_id: "call-ask", approved: true }],
    });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, "NOT_PENDING");
    const wrongCall = await two(`/api/approvals/${pending.id}`, {
      decisions: [{ call_id: "call-other", approved: true }],
    });
    assert.equal(wrongCall.status, 400, "a call the approval does not have answers nothing");
    await wrongCall.body?.cancel();

    const answered = await two(`/api/approvals/${pending.id}`, {
      decisions: [{ call_id: "call-ask", approved: true }],
    });
    assert.equal(answered.status, 204, await answered.clone().text());
    // A second answer, on either serve, is refused clearly; the continuation started once.
    for (const api of [two, one]) {
      const again = await api(`/api/approvals/${pending.id}`, {
        decisions: [{ call_id: "call-ask", approved: false }],
      });
      assert.equal(again.status, 409, await again.clone().text());
      assert.equal((await again.json()).error.code, "ALREADY_ANSWERED");
    }

    const record = await waitFor("the run's end", async () => {
      const body = await (await one(`/api/runs/${key}`)).json();
      return body.state === "running" ? undefined : body;
    }, 60_000).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.equal(record.state, "completed", JSON.stringify(record));
    assert.equal(record.summary, "done ask");
    assert.equal((await Deno.readTextFile(join(fx.root, "ws", "outside.txt"))).trim(), "yes");
    assert.equal((await fx.queue.status(`${key}:call-ask`))?.state, "completed");
    assert.equal(fx.model.requests.filter((r) => taskOf(r) === "ask").length, 2);
    assert.deepEqual(await pendingOn(one), []);
    assert.deepEqual(await pendingOn(two), []);

    // The watcher sees one run: asked, answered, the call, the end; no pause in between.
    for (const api of [one, two]) {
      const events = await readRunEvents(await api(`/api/runs/${key}/events`));
      const types = events.map((e) => e.event.type);
      events.forEach((e, i) => assert.equal(e.event.id, `${key}:${i + 1}`));
      assert.equal(types.filter((t) => t === "run_started").length, 1, types.join());
      assert.equal(types.filter((t) => t === "run_failed").length, 0, types.join());
      assert.equal(types.at(-1), "run_completed");
      const asked = types.indexOf("approval_requested");
      const given = types.indexOf("approval_answered");
      const ran = types.indexOf("tool_call_completed");
      assert.ok(asked >= 0 && asked < given && given < ran, types.join());
    }
  },
});
