import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { createRedactor } from "../../src/_util/create_redactor.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { StallDetector } from "../../src/loop/stall_detector.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

// Found by the adversarial review: tool-call arguments nested 200,000 levels deep crashed the run
// ("Maximum call stack size exceeded" in the event redaction walk); a 20 MB argument string
// crashed it in the secret-pattern regex. Both must come back to the model as data.

async function run(turns: ScriptedTurn[], secrets: string[] = []) {
  const broker = new FakeBroker(() => ({ ok: true, output: "ran" }));
  const journal: ChatMessage[] = [];
  const events: RunEvent[] = [];
  const outcome = await runAgent({
    model: new ScriptedModel(turns),
    broker,
    journal: { append: (m) => Promise.resolve(void journal.push(m)) },
    messages: [{ role: "system", content: "sys" }, { role: "user", content: "task" }],
    tools: new ToolSet(),
    runId: "0".repeat(32),
    onEvent: (e) => events.push(e),
    redact: createRedactor(secrets),
  });
  return { outcome, broker, journal, events };
}

const DEEP = '{"json":' + "[".repeat(200_000) + "]".repeat(200_000) + ',"query":"a"}';

Deno.test("runAgent() refuses tool-call arguments nested 200,000 levels deep and carries on", async () => {
  const { outcome, broker, journal, events } = await run([
    { toolCalls: [{ id: "deep", name: "json_query", arguments: DEEP }] },
    { text: "ok" },
  ]);
  assert.equal(outcome.type, "completed", String((outcome as { error?: Error }).error));
  assert.equal(broker.calls.length, 0);
  const result = journal.find((m) => m.role === "tool");
  assert.match(String(result?.content), /nest 200001 levels deep, more than the 64 allowed/);
  const started = events.find((e) => e.type === "tool_call_started");
  assert.equal(typeof (started?.data as { args: unknown }).args, "string");
  // The events stay serialisable for --json and --events-jsonl.
  assert.doesNotThrow(() => events.forEach((e) => JSON.stringify(e)));
});

Deno.test("runAgent() survives a 20 MB tool-call argument string", async () => {
  const { outcome, broker } = await run([
    {
      toolCalls: [{
        id: "big",
        name: "base64",
        arguments: JSON.stringify({ text: "a".repeat(20_000_000), action: "encode" }),
      }],
    },
    { text: "ok" },
  ]);
  assert.equal(outcome.type, "completed", String((outcome as { error?: Error }).error));
  assert.equal(broker.calls.length, 0, "over the 1 MiB input limit: refused, not run");
});

Deno.test("StallDetector.observe() compares over-deep arguments as text instead of overflowing", () => {
  const detector = new StallDetector();
  const call = { id: "c", type: "function" as const, function: { name: "glob", arguments: DEEP } };
  let stall;
  for (let i = 0; i < 5 && stall === undefined; i++) {
    stall = detector.observe([{ call, result: "same" }]);
  }
  assert.equal(stall?.name, "glob");
});

Deno.test("runAgent() redacts a secret in a tool's name in every event field, the scope's tool included", async () => {
  // Found by the adversarial review: the events file carried an unknown tool's name unredacted
  // in the event's top-level `tool` field (only `data` was redacted).
  const secret = "envtok-PLANTED-5ecret-value";
  const { outcome, events } = await run([
    { toolCalls: [{ id: "t", name: `nope_${secret}`, arguments: {} }] },
    { text: "ok" },
  ], [secret]);
  assert.equal(outcome.type, "completed");
  const text = JSON.stringify(events);
  assert.ok(text.includes("tool_call_started"));
  assert.ok(!text.includes("PLANTED"), text.slice(text.indexOf("PLANTED") - 80));
});
