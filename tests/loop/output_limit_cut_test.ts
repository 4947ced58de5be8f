/** Issue 14, case 11: a reply cut at the output limit inside a tool call's arguments. */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { prepareToolCall } from "../../src/loop/prepare_tool_call.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

const CUT = '{"path":"notes.txt","content":"a long text that stops in the mid';

async function run(finishReason: string) {
  const turns: ScriptedTurn[] = [
    {
      toolCalls: [
        { id: "r1", name: "read_file", arguments: { path: "a.txt" } },
        { id: "w1", name: "write_file", arguments: CUT },
      ],
      finishReason,
    },
    { text: "noted" },
  ];
  const model = new ScriptedModel(turns);
  const broker = new FakeBroker(() => ({ ok: true, output: "contents" }));
  const outcome = await runAgent({
    model,
    broker,
    journal: { append: () => Promise.resolve() },
    messages: [{ role: "system", content: "sys" }, { role: "user", content: "task" }],
    tools: new ToolSet(),
    runId: "0".repeat(32),
  });
  assert.equal(outcome.type, "completed");
  const results = model.requests[1].messages.filter(
    (m): m is Extract<ChatMessage, { role: "tool" }> => m.role === "tool",
  );
  return { broker, results };
}

Deno.test("runAgent(): a call cut by finish_reason length is reported as an output-limit cut and not run", async () => {
  const { broker, results } = await run("length");
  assert.deepEqual(
    broker.calls.map((c) => c.invocation.id),
    ["r1"],
    "the complete call still runs",
  );
  const cut = results.find((m) => m.tool_call_id === "w1")!;
  assert.match(cut.content, /were cut off: your reply reached the output token limit/);
  assert.match(cut.content, /finish_reason "length"/);
  assert.match(cut.content, new RegExp(`after ${CUT.length} characters`));
  assert.match(cut.content, /split large content over several calls/);
});

Deno.test("runAgent(): the same broken arguments without the cut are only invalid JSON", async () => {
  const { results } = await run("tool_calls");
  const broken = results.find((m) => m.tool_call_id === "w1")!;
  assert.match(broken.content, /are not valid JSON/);
  assert.doesNotMatch(broken.content, /cut off|output token limit/);
});

Deno.test("prepareToolCall(): valid arguments run even when the reply was cut", async () => {
  const out = await prepareToolCall(
    { id: "g", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } },
    new ToolSet(),
    { outputCut: true },
  );
  assert.ok("invocation" in out);
});
