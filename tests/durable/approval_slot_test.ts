import assert from "node:assert/strict";
import { join } from "node:path";
import { ODEK_FLAGS, ROOT } from "../e2e/_odek.ts";
import { durableFixture, postgresMissing, taskOf, waitFor } from "./_durable_fixture.ts";

const missing = postgresMissing();
if (missing) console.log(`durable approval tests skipped: ${missing}`);

Deno.test({
  name:
    "durable runs: a run waiting for approval holds no worker slot; the answer continues it as <run>:<approval id>",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // "ask" writes next to its workspace (a scratch file of the fixture): the verdict asks.
    await using fx = await durableFixture((task) =>
      task === "ask" ? "echo yes > ../outside.txt" : `echo ${task} > out.txt`
    );
    fx.worker("solo", ["--concurrency", "1"]);
    const ask = await fx.workspace("ask");
    await fx.queue.enqueue({
      runId: "run-ask",
      sessionId: "s-ask",
      task: "task ask",
      workspace: ask,
    });
    const paused = await waitFor("the approval pause", async () => {
      const status = await fx.queue.status("run-ask");
      return status?.state === "awaiting_approval" ? status : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.equal(paused.result?.approval?.id, "call-ask");
    assert.equal(paused.result?.approval?.calls[0].toolName, "shell");

    // One worker, one slot: a second run completes while the first waits.
    const quick = await fx.workspace("quick");
    await fx.queue.enqueue({
      runId: "run-quick",
      sessionId: "s-quick",
      task: "task quick",
      workspace: quick,
    });
    const done = await fx.queue.wait("run-quick");
    assert.equal(done.outcome, "completed", JSON.stringify(done));
    assert.equal((await fx.queue.status("run-ask"))?.state, "awaiting_approval");
    await assert.rejects(Deno.stat(join(fx.root, "ws", "outside.txt")));

    const next = await fx.queue.answer("run-ask", [{ callId: "call-ask", approved: true }]);
    assert.equal(next, "run-ask:call-ask");
    assert.equal(await fx.queue.answer("run-ask", [{ callId: "call-ask", approved: true }]), next);
    const resumed = await fx.queue.wait(next);
    assert.equal(resumed.outcome, "completed", JSON.stringify(resumed) + fx.logs.join(""));
    assert.equal(resumed.text, "done ask");
    assert.equal((await Deno.readTextFile(join(fx.root, "ws", "outside.txt"))).trim(), "yes");
    // The model was asked for the call once and once after its result: nothing repeated.
    assert.equal(fx.model.requests.filter((r) => taskOf(r) === "ask").length, 2);
    const { messages } = await fx.queue.sessions.read("s-ask");
    assert.deepEqual(messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);

    // The CLI reads the queue's sessions from any machine: list and export (the journal's format).
    const cli = async (...args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [...ODEK_FLAGS, join(ROOT, "main.ts"), "sessions", ...args, "--queue", fx.url],
        env: {
          HOME: join(fx.root, "cli-home"),
          ODEK_HOME: join(fx.root, "cli-home", ".odek"),
          NO_COLOR: "1",
        },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return new TextDecoder().decode(out.stdout);
    };
    const listed = await cli("list");
    assert.match(listed, /s-ask/);
    assert.match(listed, /s-quick/);
    const exported = JSON.parse(await cli("export", "s-ask"));
    assert.equal(exported.messages.at(-1).content, "done ask");
  },
});
