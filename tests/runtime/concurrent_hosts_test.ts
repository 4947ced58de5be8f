import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { untrustedBody } from "../../src/testing/untrusted_body.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { processesAppear, processesWith, survivorsOf, uniqueSleep } from "../broker/_processes.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

/** Every tool call of every assistant message is answered, in call order, right after it. */
function assertIntact(messages: readonly ChatMessage[]): void {
  messages.forEach((message, index) => {
    if (message.role !== "assistant" || !message.tool_calls) return;
    const answers = messages.slice(index + 1, index + 1 + message.tool_calls.length);
    assert.deepEqual(
      answers.map((m) => m.role === "tool" ? m.tool_call_id : m.role),
      message.tool_calls.map((call) => call.id),
    );
  });
}

const resultOf = (messages: readonly ChatMessage[], id: string) =>
  untrustedBody(String(messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content));

sandboxTest(
  "two session hosts in one process: one run cancelled mid-tool, the other completes; a second run reuses its host's broker and background job",
  async () => {
    // Per-test markers: each process this test starts carries one (never a machine-wide name).
    const jobMarker = `odek-job-${crypto.randomUUID()}`;
    const sleepMarker = uniqueSleep();
    const hostA: ScriptedTurn[] = [
      {
        toolCalls: [{
          id: "a_bg",
          name: "bg_start",
          arguments: { command: `: ${jobMarker}; echo up; while sleep 0.05; do date > beat; done` },
        }],
      },
      { text: "The heartbeat job is running." },
      { toolCalls: [{ id: "a_status", name: "bg_status", arguments: { id: "bg1" } }] },
      { text: "It is still running." },
    ];
    const hostB: ScriptedTurn[] = [
      { toolCalls: [{ id: "b_long", name: "shell", arguments: { command: sleepMarker } }] },
      { text: "never asked" },
    ];
    await using f = await runtimeFixture({ sandbox: "bwrap", scripts: [hostA, hostB] });
    const [wsA, wsB] = [await f.workspace("a"), await f.workspace("b")];
    await using a = await f.runtime.openSession({ task: "start a heartbeat" }, { workspace: wsA });
    await using b = await f.runtime.openSession({ task: "wait a long time" }, { workspace: wsB });
    const [runA, runB] = await Promise.all([a.startRun(), b.startRun()]);

    // B is cancelled while its command runs; A goes on beside it.
    assert.notDeepEqual(await processesAppear(sleepMarker), [], "B's command never started");
    runB.cancel("the test");
    const outcomeB = await runB.result;
    assert.equal(outcomeB.type, "interrupted", JSON.stringify(outcomeB));
    assert.deepEqual(await survivorsOf(sleepMarker), [], "B's tool processes outlived the cancel");
    const outcomeA = await runA.result;
    assert.equal(outcomeA.type, "completed", JSON.stringify(outcomeA));

    // A's second run: same host, same broker — the job started in the first run is still there.
    assert.notDeepEqual(processesWith(jobMarker), [], "the background job died with its run");
    const secondA = await a.startRun({ message: "is it still running?" });
    const outcome2 = await secondA.result;
    assert.equal(outcome2.type, "completed", JSON.stringify(outcome2));
    assert.equal(f.models.length, 2, "no host made a second model client");

    const journalA = (await f.runtime.sessions.read(a.sessionId)).messages;
    const journalB = (await f.runtime.sessions.read(b.sessionId)).messages;
    assertIntact(journalA);
    assertIntact(journalB);
    assert.match(resultOf(journalA, "a_bg"), /^started bg1/);
    assert.match(resultOf(journalA, "a_status"), /bg1 · running/);
    assert.equal(journalA.at(-1)?.role, "assistant");
    assert.match(resultOf(journalB, "b_long"), /^error \(interrupted\)/);
    assert.equal(
      journalB.filter((m) => m.role === "assistant").length,
      1,
      "B ran no turn after the cancel",
    );

    // Closing the host stops what outlives a run: the job.
    await a.close();
    assert.deepEqual(await survivorsOf(jobMarker), [], "the host's job outlived it");
    await b.close();
    assert.deepEqual(await f.egressDirs(), [], "a host's egress proxy outlived it");
  },
);
