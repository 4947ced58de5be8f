/**
 * Design §8.3 through the runtime API: a run stopped at the approval prompt leaves its batch
 * pending; the host says which calls wait and the next run asks them again (the same host, or a
 * new runtime after a restart), answers them `not started` when nobody is to be asked, or when
 * the operator goes on with a new message.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ApprovalRequest, Approver } from "../../src/approval/approver.ts";
import type { RuntimeEvent } from "../../src/runtime/event_subscription.ts";
import type { ScriptedModelTurns } from "../../src/testing/scripted_model.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

/** An approver that holds each question until `answer` is called or the run's signal aborts. */
function heldApprover() {
  const asked: ApprovalRequest[] = [];
  let release: ((approved: boolean) => void) | undefined;
  const approver: Approver = {
    decide(request, signal) {
      asked.push(request);
      return new Promise((resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        release = (approved) =>
          resolve(request.calls.map((c) => ({ callId: c.callId, approved, scope: "once" })));
      });
    },
  };
  return { approver, asked, answer: (approved: boolean) => release?.(approved) };
}

const waitFor = async (what: string, ok: () => boolean) => {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/**
 * A script whose first turn is the batch — a read, a contained write, and a write into
 * the fixture's `outside` folder, beyond the workspace (it asks) — and then `answers`.
 */
function script(where: { outside: string }, ...answers: string[]): ScriptedModelTurns {
  return (_request, index) =>
    index === 0
      ? {
        toolCalls: [
          { id: "r1", name: "read_file", arguments: { path: "a.txt" } },
          { id: "w1", name: "write_file", arguments: { path: "ran.txt", content: "ran\n" } },
          {
            id: "x1",
            name: "write_file",
            arguments: { path: join(where.outside, "x.txt"), content: "x\n" },
          },
        ],
      }
      : { text: answers[index - 1] ?? "done" };
}

async function all(events: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

Deno.test("a run cancelled at the approval prompt leaves its batch pending; the same host asks again", async () => {
  const where = { outside: "" };
  await using f = await runtimeFixture({ scripts: [script(where)] });
  const workspace = await f.workspace("ws");
  where.outside = await f.workspace("outside");
  await Deno.writeTextFile(join(workspace, "a.txt"), "alpha\n");
  const held = heldApprover();
  await using host = await f.runtime.openSession({ task: "three things" }, {
    workspace,
    approver: held.approver,
  });
  const run = await host.startRun();
  await waitFor("the approval question", () => held.asked.length === 1);
  run.cancel("SIGINT");
  assert.equal((await run.result).type, "interrupted");
  assert.deepEqual(host.pendingToolCalls.map((p) => [p.call.id, p.state]), [
    ["r1", "not_started"],
    ["w1", "not_started"],
    ["x1", "awaiting_approval"],
  ]);
  const next = await host.startRun();
  await waitFor("the question again", () => held.asked.length === 2);
  assert.deepEqual(held.asked[1].calls.map((c) => c.callId), ["x1"]);
  held.answer(false);
  const outcome = await next.result;
  assert.equal(outcome.type, "completed", JSON.stringify(outcome));
  assert.equal(await Deno.readTextFile(join(workspace, "ran.txt")), "ran\n");
  assert.deepEqual(host.pendingToolCalls, []);
  const request = f.models[0].requests.at(-1)!;
  const results = request.messages.filter((m) => m.role === "tool");
  assert.deepEqual(results.map((m) => m.role === "tool" && m.tool_call_id), ["r1", "w1", "x1"]);
  await assert.rejects(Deno.stat(join(where.outside, "x.txt")), Deno.errors.NotFound);
});

Deno.test("after a restart: pendingToolCalls names the call that waited; no approver answers it not started", async () => {
  const where = { outside: "" };
  await using f = await runtimeFixture({ scripts: [script(where), [{ text: "done" }]] });
  const workspace = await f.workspace("ws");
  where.outside = await f.workspace("outside");
  await Deno.writeTextFile(join(workspace, "a.txt"), "alpha\n");
  const held = heldApprover();
  const first = await f.runtime.openSession({ task: "three things", sessionId: "restart" }, {
    workspace,
    approver: held.approver,
  });
  const run = await first.startRun();
  await waitFor("the approval question", () => held.asked.length === 1);
  await first.close(); // the process goes away with the question on screen
  assert.equal((await run.result).type, "interrupted");

  await using host = await f.runtime.openSession({ sessionId: "restart" });
  const pending = host.pendingToolCalls;
  assert.deepEqual(pending.map((p) => [p.call.id, p.state]), [
    ["r1", "not_started"],
    ["w1", "not_started"],
    ["x1", "awaiting_approval"],
  ]);
  assert.equal(pending[2].state === "awaiting_approval" && pending[2].verdict.decision, "ask");
  const resumed = await host.startRun();
  const events = await all(resumed.events);
  assert.equal((await resumed.result).type, "completed");
  assert.ok(!events.some((e) => e.type === "approval_requested"), "nobody to ask");
  const results = f.models[1].requests[0].messages.filter((m) => m.role === "tool");
  const x1 = results.find((m) => m.role === "tool" && m.tool_call_id === "x1");
  assert.match(
    String(x1?.content),
    /^error \(not_started\): Tool call x1 \(write_file\) was not run: the run stopped before it was approved/,
  );
  assert.equal(await Deno.readTextFile(join(workspace, "ran.txt")), "ran\n");
  await assert.rejects(Deno.stat(join(where.outside, "x.txt")), Deno.errors.NotFound);
});

Deno.test("a new message instead of the stopped batch answers its calls as not started", async () => {
  const where = { outside: "" };
  await using f = await runtimeFixture({ scripts: [script(where), [{ text: "done" }]] });
  const workspace = await f.workspace("ws");
  where.outside = await f.workspace("outside");
  const held = heldApprover();
  const first = await f.runtime.openSession({ task: "three things", sessionId: "redirect" }, {
    workspace,
    approver: held.approver,
  });
  await first.startRun();
  await waitFor("the approval question", () => held.asked.length === 1);
  await first.close();
  await using host = await f.runtime.openSession({ sessionId: "redirect" }, {
    approver: held.approver,
  });
  const run = await host.startRun({ message: "forget that, just say hi" });
  assert.equal((await run.result).type, "completed");
  assert.equal(held.asked.length, 1, "not asked again");
  const sent = f.models[1].requests[0].messages;
  const results = sent.filter((m) => m.role === "tool");
  assert.equal(results.length, 3);
  for (const m of results) {
    assert.match(
      String(m.content),
      /^error \(not_started\): .*the operator went on with a new message/,
    );
  }
  assert.equal(sent.at(-1)!.content, "forget that, just say hi");
  await assert.rejects(Deno.stat(join(workspace, "ran.txt")), Deno.errors.NotFound);
});
