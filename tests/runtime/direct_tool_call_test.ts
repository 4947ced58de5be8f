// startRun({ toolCall }): a tool call named by a surface runs as a one-step run on the host's
// path — validated, classified, approved, journaled — and no model request is made.
import assert from "node:assert/strict";
import { join } from "node:path";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";
import { DIRECT_CALL_DONE } from "../../src/runtime/direct_call_model.ts";

sandboxTest("startRun({ toolCall }) runs the call through the gate and journals it", async (t) => {
  await using f = await runtimeFixture({ scripts: [[]], sandbox: "bwrap" });
  const ws = await f.workspace("ws");
  await Deno.writeTextFile(join(ws, "a.txt"), "alpha\n");
  const outside = join(await f.workspace("elsewhere"), "canary.txt");
  const asked: string[] = [];
  await using host = await f.runtime.openSession({ task: "direct calls" }, {
    workspace: ws,
    approver: {
      decide: (request) => {
        asked.push(...request.calls.map((c) => c.toolName));
        return Promise.resolve(
          request.calls.map((c) => ({ callId: c.callId, approved: false, scope: "once" as const })),
        );
      },
    },
  });
  const last = () => host.messages.filter((m) => m.role === "tool").at(-1);
  await t.step("a read runs without asking", async () => {
    const run = await host.startRun({
      message: "read a.txt",
      toolCall: { id: "d1", name: "read_file", args: { path: "a.txt" } },
    });
    const outcome = await run.result;
    assert.equal(outcome.type, "completed");
    assert.equal(outcome.type === "completed" && outcome.text, DIRECT_CALL_DONE);
    const tool = last();
    assert.equal(tool?.role === "tool" && tool.tool_call_id, "d1");
    assert.match(String(tool?.content), /alpha/);
    assert.equal(f.models[0].requests.length, 0, "no model request");
  });
  await t.step("a call that asks goes to the approver; denied, it does not run", async () => {
    const run = await host.startRun({
      message: "write outside",
      toolCall: { name: "write_file", args: { path: outside, content: "canary" } },
    });
    await run.result;
    assert.deepEqual(asked, ["write_file"], String(last()?.content));
    await assert.rejects(() => Deno.stat(outside), Deno.errors.NotFound);
    assert.match(String(last()?.content), /denied/);
  });
  await t.step("bad arguments are an error result, not a throw", async () => {
    const run = await host.startRun({
      message: "bad",
      toolCall: { name: "read_file", args: { nope: 1 } },
    });
    assert.equal((await run.result).type, "completed");
    assert.match(String(last()?.content), /error/);
  });
  await t.step("a toolCall without a message is refused", async () => {
    await assert.rejects(
      () => host.startRun({ toolCall: { name: "read_file", args: {} } }),
      TypeError,
    );
  });
});
