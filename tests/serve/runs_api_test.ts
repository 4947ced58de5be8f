/**
 * Runs over REST against scripted models: a task runs in its own workspace, its events stream
 * as SSE with `<run>:<seq>` ids and resume without duplicates, approvals and clarifications are
 * answered over the API and reach the run, the concurrency cap queues, bad bodies change nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { RuntimeEvent } from "../../src/runtime/event_subscription.ts";
import { body, readSse, serveFixture, waitFor } from "./_serve_fixture.ts";

interface RunJson {
  key: string;
  run_id?: string;
  session_id: string;
  state: string;
  queued_reason?: string;
  workspace: string;
  summary?: string;
}

async function finished(s: Awaited<ReturnType<typeof serveFixture>>, sessionId: string) {
  await waitFor(`session ${sessionId}'s run to end`, () => s.runs.current(sessionId) === undefined);
  return s.runs.list().find((r) => r.sessionId === sessionId)!;
}

Deno.test("POST /api/runs runs a task in its own workspace; its events stream as SSE and resume after Last-Event-ID", async () => {
  await using s = await serveFixture({ scripts: [[{ text: "All done here." }]] });
  const started = await s.call("/api/runs", { method: "POST", json: { task: "say done" } });
  assert.equal(started.status, 202);
  const run = await body<RunJson>(started);
  assert.match(run.workspace, /-workspace\/\d{8}-\d{6}-[0-9a-f]{6}$/);
  assert.ok(run.workspace.endsWith(run.session_id));
  const record = await finished(s, run.session_id);
  assert.equal(record.state, "completed");
  assert.equal(record.summary, "All done here.");

  const status = await body<RunJson>(await s.call(`/api/runs/${record.runId}`));
  assert.equal(status.state, "completed");
  const all = await readSse(await s.call(`/api/runs/${record.runId}/events`));
  const events = all.map((e) => JSON.parse(e.data) as RuntimeEvent);
  assert.deepEqual(all.map((e) => e.id), events.map((e) => `${record.runId}:${e.seq}`));
  assert.equal(events[0].type, "run_started");
  assert.equal(events.at(-1)!.type, "run_completed");
  assert.equal(
    events.filter((e) => e.type === "text_delta").map((e) => (e.data as { text: string }).text)
      .join(""),
    "All done here.",
  );
  const middle = all[2].id!;
  const rest = await readSse(
    await s.call(`/api/runs/${record.runId}/events`, { headers: { "last-event-id": middle } }),
  );
  assert.deepEqual(rest.map((e) => e.id), all.slice(3).map((e) => e.id));
  const viaQuery = await readSse(await s.call(`/api/runs/${record.runId}/events?after=3`));
  assert.deepEqual(viaQuery.map((e) => e.id), all.slice(3).map((e) => e.id));

  const list = await body<{ sessions: { id: string; run?: RunJson }[]; total: number }>(
    await s.call("/api/sessions?q=SAY&limit=5"),
  );
  assert.equal(list.total, 1);
  assert.equal(list.sessions[0].id, run.session_id);
  assert.equal(list.sessions[0].run?.state, "completed");
  const none = await body<{ total: number }>(await s.call("/api/sessions?q=nothing-like-it"));
  assert.equal(none.total, 0);
  const shown = await body<{ messages: { role: string; content: unknown }[] }>(
    await s.call(`/api/sessions/${run.session_id}`),
  );
  assert.equal(shown.messages.at(-1)?.content, "All done here.");
  const exported = await s.call(`/api/sessions/${run.session_id}/export`);
  assert.match(exported.headers.get("content-disposition") ?? "", /attachment/);
  assert.equal((await body<{ meta: { id: string } }>(exported)).meta.id, run.session_id);
  const usage = await body<{ total: { input_tokens: number; output_tokens: number } }>(
    await s.call("/api/usage"),
  );
  assert.ok(usage.total.output_tokens > 0);
  const deleted = await s.call(`/api/sessions/${run.session_id}`, { method: "DELETE" });
  assert.equal(deleted.status, 204);
  assert.equal((await s.call(`/api/sessions/${run.session_id}`)).status, 404);
});

Deno.test("the stream of all runs resumes after Last-Event-ID without duplicates or gaps", async () => {
  await using s = await serveFixture({
    scripts: [[{ text: "first answer" }], [{ text: "second answer" }]],
  });
  const a = await body<RunJson>(await s.call("/api/runs", { method: "POST", json: { task: "a" } }));
  await finished(s, a.session_id);
  const b = await body<RunJson>(await s.call("/api/runs", { method: "POST", json: { task: "b" } }));
  await finished(s, b.session_id);
  const runA = s.runs.list().find((r) => r.sessionId === a.session_id)!.runId!;
  const stream = await s.call("/api/events", { headers: { "last-event-id": `${runA}:2` } });
  const got = await readSse(
    stream,
    (events) =>
      events.some((e) => e.data.includes('"run_completed"') && e.data.includes(b.session_id)),
  );
  const hello = JSON.parse(got[0].data);
  assert.equal(got[0].event, "hello");
  assert.equal(hello.resumed, true);
  const ids = got.filter((e) => e.event === "run_event").map((e) => e.id!);
  assert.equal(ids[0], `${runA}:3`);
  assert.equal(new Set(ids).size, ids.length);
  const seqs = ids.filter((id) => id.startsWith(runA)).map((id) => Number(id.split(":")[1]));
  assert.deepEqual(seqs, seqs.map((_, i) => i + 3));
  const unknown = await s.call("/api/events", { headers: { "last-event-id": "nope:1" } });
  const [first] = await readSse(unknown, (events) => events.length > 0);
  assert.equal(JSON.parse(first.data).resumed, false);
});

Deno.test("an approval is listed with its risk and preview; a denial's reason reaches the model; an approval runs the call", async () => {
  const outside = { path: "" };
  const turns = (_r: unknown, index: number) =>
    index === 0
      ? {
        toolCalls: [{
          id: "w1",
          name: "write_file",
          arguments: { path: join(outside.path, "denied.txt"), content: "no\n" },
        }],
      }
      : index === 1
      ? {
        toolCalls: [{
          id: "w2",
          name: "write_file",
          arguments: { path: join(outside.path, "approved.txt"), content: "yes\n" },
        }],
      }
      : { text: "finished" };
  await using s = await serveFixture({ scripts: [turns] });
  outside.path = await s.f.workspace("outside");
  const run = await body<RunJson>(
    await s.call("/api/runs", { method: "POST", json: { task: "write two files" } }),
  );
  const pendingOf = async () =>
    (await body<
      {
        pending: {
          id: string;
          calls: { call_id: string; risk_classes: string[]; preview: string }[];
        }[];
      }
    >(
      await s.call(`/api/approvals?session_id=${run.session_id}`),
    )).pending;
  await waitFor("the first approval", async () => (await pendingOf()).length === 1);
  const [first] = await pendingOf();
  assert.equal(first.calls[0].call_id, "w1");
  assert.ok(first.calls[0].risk_classes.length > 0);
  assert.match(first.calls[0].preview, /denied\.txt|no/);
  const wrongCall = await s.call(`/api/approvals/${first.id}`, {
    method: "POST",
    json: { decisions: [{ call_id: "nope", approved: true }] },
  });
  assert.equal(wrongCall.status, 400);
  await wrongCall.body?.cancel();
  const bad = await s.call(`/api/approvals/${first.id}`, {
    method: "POST",
    json: { decisions: [{ call_id: "w1", approved: "yes" }] },
  });
  assert.equal(bad.status, 400);
  assert.match((await body<{ error: { message: string } }>(bad)).error.message, /approved/);
  assert.equal((await pendingOf()).length, 1, "a bad answer leaves the question pending");
  const denied = await s.call(`/api/approvals/${first.id}`, {
    method: "POST",
    json: { decisions: [{ call_id: "w1", approved: false, reason: "not that folder" }] },
  });
  assert.equal(denied.status, 204);
  await waitFor(
    "the second approval",
    async () => (await pendingOf())[0]?.id !== undefined && (await pendingOf())[0].id !== first.id,
  );
  const [second] = await pendingOf();
  const again = await s.call(`/api/approvals/${first.id}`, {
    method: "POST",
    json: { decisions: [{ call_id: "w1", approved: true }] },
  });
  assert.equal(again.status, 409, "an approval answered already is refused as such");
  assert.equal((await body<{ error: { code: string } }>(again)).error.code, "ALREADY_ANSWERED");
  assert.equal(
    (await s.call(`/api/approvals/${second.id}`, {
      method: "POST",
      json: { decisions: [{ call_id: "w2", approved: true }] },
    })).status,
    204,
  );
  const record = await finished(s, run.session_id);
  assert.equal(record.state, "completed", record.summary);
  const model = s.f.models[0];
  const results = model.requests.at(-1)!.messages.filter((m) => m.role === "tool");
  assert.match(String(results[0].content), /not that folder/);
  assert.equal(await Deno.readTextFile(join(outside.path, "approved.txt")), "yes\n");
  await assert.rejects(Deno.stat(join(outside.path, "denied.txt")), Deno.errors.NotFound);
});

Deno.test("a clarification is answered over the API and the model gets the answer", async () => {
  const turns = (_r: unknown, index: number) =>
    index === 0
      ? { toolCalls: [{ id: "c1", name: "clarify", arguments: { question: "Which branch?" } }] }
      : { text: "ok" };
  await using s = await serveFixture({ scripts: [turns] });
  const run = await body<RunJson>(
    await s.call("/api/runs", { method: "POST", json: { task: "ask" } }),
  );
  let id = "";
  await waitFor("the question", async () => {
    const { pending } = await body<{ pending: { id: string; question: string }[] }>(
      await s.call("/api/clarifications"),
    );
    id = pending[0]?.id ?? "";
    return pending[0]?.question === "Which branch?";
  });
  const wrongKind = await s.call(`/api/approvals/${id.replace("clr", "apr")}`, {
    method: "POST",
    json: { decisions: [{ call_id: "c1", approved: true }] },
  });
  assert.equal(wrongKind.status, 404);
  await wrongKind.body?.cancel();
  assert.equal(
    (await s.call(`/api/clarifications/${id}`, { method: "POST", json: { answer: "main" } }))
      .status,
    204,
  );
  assert.equal((await finished(s, run.session_id)).state, "completed");
  const results = s.f.models[0].requests.at(-1)!.messages.filter((m) => m.role === "tool");
  assert.match(String(results[0].content), /main/);
});

Deno.test("the concurrency cap queues runs with the reason; a message to a finished session starts its next run", async () => {
  const gate = Promise.withResolvers<void>();
  await using s = await serveFixture({
    maxConcurrentRuns: 1,
    scripts: [
      async () => {
        await gate.promise;
        return { text: "one" };
      },
      [{ text: "two" }],
      [{ text: "three" }], // each run opens a host of its own
    ],
  });
  const a = await body<RunJson>(await s.call("/api/runs", { method: "POST", json: { task: "a" } }));
  const b = await body<RunJson>(await s.call("/api/runs", { method: "POST", json: { task: "b" } }));
  assert.equal(a.state, "running");
  assert.equal(b.state, "queued");
  const queued = await body<RunJson>(await s.call(`/api/runs/${b.key}`));
  assert.match(queued.queued_reason ?? "", /cap is 1/);
  const busy = await s.call("/api/runs", {
    method: "POST",
    json: { session_id: b.session_id, message: "more" },
  });
  assert.equal(busy.status, 409);
  await busy.body?.cancel();
  gate.resolve();
  await finished(s, a.session_id);
  assert.equal((await finished(s, b.session_id)).state, "completed");
  const next = await s.call("/api/runs", {
    method: "POST",
    json: { session_id: b.session_id, message: "and again" },
  });
  assert.equal(next.status, 202);
  const record = await finished(s, b.session_id);
  assert.equal(record.summary, "three");
  const runs = await body<{ runs: RunJson[] }>(await s.call("/api/runs"));
  assert.equal(runs.runs.length, 3);
});

Deno.test("bad bodies get a clear 400 and change nothing", async () => {
  await using s = await serveFixture({ scripts: [] });
  const cases: [string, RequestInit & { json?: unknown }][] = [
    ["not JSON", {
      method: "POST",
      body: "{nope",
      headers: { "content-type": "application/json" },
    }],
    ["unknown field", { method: "POST", json: { task: "x", shell: "rm" } }],
    ["empty task", { method: "POST", json: { task: "" } }],
    ["wrong type", { method: "POST", json: { task: 5 } }],
    ["array", { method: "POST", json: [] }],
    ["bad session id", { method: "POST", json: { session_id: "../../etc", message: "x" } }],
  ];
  for (const [what, init] of cases) {
    const response = await s.call("/api/runs", init);
    assert.equal(response.status, 400, what);
    const { error } = await body<{ error: { code: string; message: string } }>(response);
    assert.ok(error.message.length > 10, what);
  }
  const outside = await s.call("/api/runs", {
    method: "POST",
    json: { task: "x", workspace: s.f.root },
  });
  assert.equal(outside.status, 400);
  assert.match(
    (await body<{ error: { message: string } }>(outside)).error.message,
    /not under a root/,
  );
  assert.equal((await s.call("/api/runs/not-a-key")).status, 400);
  assert.equal((await s.call("/api/runs/0123456789abcdef0123456789abcdef")).status, 404);
  assert.deepEqual(await s.f.runtime.sessions.list(), []);
  assert.equal(s.runs.list().length, 0);
});

Deno.test("a named workspace under an allowed root is used; two runs writing it are serialised", async () => {
  const gate = Promise.withResolvers<void>();
  await using s = await serveFixture({
    scripts: [
      async () => {
        await gate.promise;
        return { text: "one" };
      },
      [{ text: "two" }],
    ],
  });
  const workspace = join(s.root, "project");
  await Deno.mkdir(workspace);
  const a = await body<RunJson>(
    await s.call("/api/runs", { method: "POST", json: { task: "a", workspace } }),
  );
  const b = await body<RunJson>(
    await s.call("/api/runs", { method: "POST", json: { task: "b", workspace } }),
  );
  assert.equal(a.workspace, await Deno.realPath(workspace));
  assert.equal(b.state, "queued");
  assert.match(
    (await body<RunJson>(await s.call(`/api/runs/${b.key}`))).queued_reason ?? "",
    /writing the workspace/,
  );
  gate.resolve();
  assert.equal((await finished(s, a.session_id)).state, "completed");
  assert.equal((await finished(s, b.session_id)).state, "completed");
});

Deno.test("cancel stops a going run and drops a queued one", async () => {
  await using s = await serveFixture({
    maxConcurrentRuns: 1,
    scripts: [[{ delayMs: 600_000, text: "never" }]], // only a cancel ends it
  });
  const a = await body<RunJson>(await s.call("/api/runs", { method: "POST", json: { task: "a" } }));
  const b = await body<RunJson>(await s.call("/api/runs", { method: "POST", json: { task: "b" } }));
  assert.equal((await s.call(`/api/runs/${b.key}/cancel`, { method: "POST" })).status, 202);
  assert.equal(s.runs.record(b.key)?.state, "interrupted");
  await waitFor("a's run id", () => s.runs.current(a.session_id)?.runId !== undefined);
  const key = s.runs.current(a.session_id)!.runId!;
  assert.equal((await s.call(`/api/runs/${key}/cancel`, { method: "POST" })).status, 202);
  assert.equal((await finished(s, a.session_id)).state, "interrupted");
  const ended = await s.call(`/api/runs/${key}/cancel`, { method: "POST" });
  assert.equal(ended.status, 409);
  await ended.body?.cancel();
});
