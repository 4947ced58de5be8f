/**
 * A broker with `runAfter` gets the journal's `tool_started` write as `ready` (design §8.3): the
 * call may be readied while the record is written, acts only after it, and a record that cannot
 * be written stops the run with the call not acted on.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import type { ToolInvocation, ToolResult } from "../../src/broker/tool_broker.ts";
import type { TranscriptJournal } from "../../src/loop/run_context.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

const START: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "task" },
];

/** A FakeBroker whose `runAfter` notes what it was given and acts only once `ready` resolves. */
class WaitingBroker extends FakeBroker {
  readonly acted: string[] = [];
  readonly readied: string[] = [];
  constructor() {
    super(() => ({ ok: true, output: "ok" }));
  }
  async runAfter(
    invocation: ToolInvocation,
    ready: Promise<void>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    this.readied.push(invocation.id);
    await ready;
    this.acted.push(invocation.id);
    return await this.run(invocation, signal);
  }
}

function journal(failStart: boolean) {
  const records: string[] = [];
  let release!: () => void;
  const written = new Promise<void>((resolve) => (release = resolve));
  const value: TranscriptJournal = {
    append: (message) => Promise.resolve(void records.push(`message:${message.role}`)),
    recordToolStarted: async (id) => {
      await written; // held until the broker has been handed the call
      if (failStart) throw new Error("disk full");
      records.push(`tool_started:${id}`);
    },
    toolCallIds: new Set(),
  };
  return { value, records, release };
}

for (const failStart of [false, true]) {
  Deno.test(`runAgent() hands runAfter the tool_started write (${failStart ? "failing" : "written"})`, async () => {
    const broker = new WaitingBroker();
    const j = journal(failStart);
    const run = runAgent({
      model: new ScriptedModel([
        { toolCalls: [{ id: "c1", name: "glob", arguments: { pattern: "*" } }] },
        { text: "done" },
      ]),
      broker,
      journal: j.value,
      messages: START,
      tools: new ToolSet(),
      runId: "0".repeat(32),
    });
    // The broker is handed the call while the record is still being written: nothing acted.
    for (let i = 0; i < 1000 && broker.readied.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.deepEqual(broker.readied, ["c1"]);
    assert.deepEqual(broker.acted, []);
    j.release();
    const outcome = await run;
    if (failStart) {
      assert.equal(outcome.type, "failed");
      assert.deepEqual(broker.acted, [], "a call whose start could not be recorded never acts");
      assert.ok(!j.records.includes("message:tool"));
    } else {
      assert.equal(outcome.type, "completed");
      assert.deepEqual(broker.acted, ["c1"]);
      assert.deepEqual(j.records, [
        "message:assistant",
        "tool_started:c1",
        "message:tool",
        "message:assistant",
      ]);
    }
  });
}
