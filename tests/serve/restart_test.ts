/**
 * A run waiting on an approval when the server stops is started again by the next server: the
 * approval is pending again (never silently denied), and answering it lets the run go on from
 * its last completed step. A finished run's events replay from serve's event files.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { OperatorRequests } from "../../src/serve/operator_requests.ts";
import { ServeRuns } from "../../src/serve/serve_runs.ts";
import { body, serveFixture, waitFor } from "./_serve_fixture.ts";

Deno.test("a pending approval survives a server restart and the run goes on from its last step", async () => {
  const outside = { path: "" };
  await using s = await serveFixture({
    scripts: [
      () => ({
        toolCalls: [{
          id: "w1",
          name: "write_file",
          arguments: { path: join(outside.path, "x.txt"), content: "x\n" },
        }],
      }),
      [{ text: "resumed and done" }],
    ],
  });
  outside.path = await s.f.workspace("outside");
  const started = await body<{ session_id: string }>(
    await s.call("/api/runs", { method: "POST", json: { task: "write outside" } }),
  );
  await waitFor("the approval", () => s.requests.list().length === 1);
  const firstRun = s.runs.current(started.session_id)!.runId!;
  await s.runs[Symbol.asyncDispose](); // the server goes away with the question on screen

  const requests = new OperatorRequests(s.f.runtime.redact);
  await using again = new ServeRuns({ runtime: s.f.runtime, requests });
  await again.start();
  await waitFor("the approval asked again", () => requests.list().length === 1);
  const [pending] = requests.list();
  assert.equal(pending.type, "approval");
  assert.equal(pending.type === "approval" && pending.calls[0].callId, "w1");
  assert.equal(again.record(firstRun)?.state, "interrupted");
  requests.answer(pending.id, { decisions: [{ callId: "w1", approved: false, reason: "no" }] });
  await waitFor("the resumed run's end", () => again.current(started.session_id) === undefined);
  const resumed = again.list().find((r) =>
    r.sessionId === started.session_id && r.key !== firstRun
  )!;
  assert.equal(resumed.state, "completed", resumed.summary);
  assert.equal(resumed.summary, "resumed and done");
  const request = s.f.models[1].requests[0];
  const results = request.messages.filter((m) => m.role === "tool");
  assert.equal(results.length, 1, "the call is answered once, by the second server");
  assert.match(String(results[0].content), /no/);
  const stored = await again.storedEvents(firstRun, 0);
  assert.ok(stored && stored.length > 0 && stored[0].type === "run_started");
  const storedIds = stored!.map((e) => e.seq);
  assert.deepEqual(storedIds, storedIds.map((_, i) => i + 1));
});
