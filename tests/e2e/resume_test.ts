import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { survivorsOf } from "../broker/_processes.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The heartbeat file's content, written every 100 ms by the slow command while it lives. */
async function beat(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

sandboxTest(
  "odek continue after SIGKILL mid-batch: valid request, no recorded result lost, no finished call re-run",
  async () => {
    await using fx = await odekFixture();
    const heartbeat = join(fx.workspace, "heartbeat");
    const slowMarker = `odek-slow-${crypto.randomUUID()}`;
    await using first = await startFakeOpenAIServer({
      turns: [{
        toolCalls: [
          {
            id: "fast_1",
            name: "shell",
            arguments: { command: "echo run >> fast1.log && echo first-done" },
          },
          {
            id: "fast_2",
            name: "write_file",
            arguments: { path: "notes/out.txt", content: "written once\n" },
          },
          {
            id: "slow",
            name: "shell",
            arguments: {
              // The leading word marks this command's processes (per test, never machine-wide).
              command:
                `: ${slowMarker}; for i in $(seq 1 600); do echo $i > heartbeat; sleep 0.1; done; echo late >> slow.log`,
            },
          },
        ],
      }],
    });
    const child = fx.spawn([
      "run",
      "--session",
      "crashy",
      "--base-url",
      first.url,
      "do three things",
    ]);
    const journal = join(fx.odekHome, "sessions", "crashy.jsonl");
    await waitFor("two journaled results", async () => {
      try {
        const lines = (await Deno.readTextFile(journal)).trim().split("\n").map((l) =>
          JSON.parse(l)
        );
        return lines.filter((r) => r.t === "message" && r.message.role === "tool").length >= 2
          ? true
          : undefined;
      } catch {
        return undefined;
      }
    });
    await waitFor("the slow command to start", () => beat(heartbeat));

    // A second odek on the running session is refused while it holds the lock.
    const second = await fx.run(["continue", "crashy", "--base-url", first.url]);
    assert.equal(second.code, 1);
    assert.match(second.stderr, /Session "crashy" is in use by odek process \d+/);

    child.kill("SIGKILL");
    await child.output();
    // The whole sandbox dies with odek: no process of the slow command is left (waited for
    // with a deadline, never a fixed sleep).
    assert.deepEqual(await survivorsOf(slowMarker), [], "the sandboxed command outlived odek");

    await using resumed = await startFakeOpenAIServer({
      turns: [{ text: "Two finished; the slow one was interrupted." }],
    });
    const result = await fx.run(["continue", "crashy", "--base-url", resumed.url]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /1 tool call\(s\) were interrupted/);
    const request = resumed.requests[0].body;
    // Valid: every tool call of every assistant message is answered, in call order, right after it.
    const messages = request.messages as {
      role: string;
      tool_calls?: { id: string }[];
      tool_call_id?: string;
      content: string;
    }[];
    messages.forEach((m, i) => {
      if (m.role !== "assistant" || !m.tool_calls) return;
      const answers = messages.slice(i + 1, i + 1 + m.tool_calls.length).map((r) => r.tool_call_id);
      assert.deepEqual(answers, m.tool_calls.map((c) => c.id));
    });
    const results = toolMessages(request);
    assert.deepEqual(results.map((r) => r.tool_call_id), ["fast_1", "fast_2", "slow"]);
    assert.match(results[0].content, /first-done/);
    assert.match(results[1].content, /notes\/out\.txt/);
    assert.match(
      results[2].content,
      /^error \(interrupted\): Tool call slow \(shell\) was interrupted/,
    );
    // Nothing that finished ran again; the interrupted call was not re-run either.
    assert.equal(await Deno.readTextFile(join(fx.workspace, "fast1.log")), "run\n");
    assert.equal(await Deno.readTextFile(join(fx.workspace, "notes/out.txt")), "written once\n");
    await assert.rejects(Deno.stat(join(fx.workspace, "slow.log")), Deno.errors.NotFound);
    assert.match(result.stdout, /Two finished; the slow one was interrupted\./);
  },
);
