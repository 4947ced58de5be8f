import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { assertWellFormed } from "./_context_checks.ts";

Deno.test("the provider's context_length_exceeded 400 over HTTP triggers a survival trim and the run completes", async () => {
  const WINDOW = 6000;
  let step = 0;
  await using server = await startFakeOpenAIServer({
    contextWindow: WINDOW,
    turns: () => {
      step++;
      return step > 12 ? { text: "finished" } : {
        toolCalls: [{ id: `s${step}`, name: "shell", arguments: { command: `echo ${step}` } }],
      };
    },
  });
  const head: ChatMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "task" },
  ];
  const events: RunEvent[] = [];
  const outcome = await runAgent({
    model: new OpenAIModel({ baseURL: server.url, apiKey: "sk-test", model: "m" }),
    broker: new FakeBroker(() => ({ ok: true, output: "r".repeat(3000) })),
    journal: { append: () => Promise.resolve() },
    messages: head,
    tools: new ToolSet(),
    runId: "0".repeat(32),
    onEvent: (e) => events.push(e),
    // odek believes the window is huge: only the provider's refusal can make it trim.
    context: { window: 1_000_000, compaction: false },
  });
  assert.equal(outcome.type, "completed");
  const refused = server.requests.flatMap((r, i) => (r.refused ? [i] : []));
  assert.ok(refused.length > 0, "no request was refused");
  for (const i of refused) {
    const retry = server.requests[i + 1];
    assert.ok(!retry.refused, `the retry after request ${i} was refused too`);
    assertWellFormed(retry.body.messages, head, `retry ${i + 1}`);
    assert.deepEqual(
      retry.body.messages.slice(2).map((m: ChatMessage) => m.role),
      ["assistant", "tool"],
    );
  }
  assert.ok(events.some((e) => e.type === "context_trimmed" && e.data.mode === "survival"));
});
