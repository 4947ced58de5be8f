import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ModelDelta } from "../../src/llm/model.ts";
import type { Fault } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

Deno.test("ScriptedModel.complete() answers turns in order with deltas and generated ids", async () => {
  const model = new ScriptedModel([
    {
      reasoning: "hmm",
      toolCalls: [{ id: null, name: "glob", arguments: "" }, {
        name: "shell",
        arguments: { command: "ls" },
      }],
    },
    { text: "all done here", usage: { prompt_tokens: 4, completion_tokens: 2 } },
  ]);
  const deltas: ModelDelta[] = [];
  const first = await model.complete(
    { messages: [], tools: [], iteration: 5 },
    (d) => deltas.push(d),
  );
  assert.equal(first.finishReason, "tool_calls");
  assert.deepEqual(first.message, {
    role: "assistant",
    content: null,
    reasoning_content: "hmm",
    tool_calls: [
      { id: "it5-call0", type: "function", function: { name: "glob", arguments: "{}" } },
      {
        id: "call_1_1",
        type: "function",
        function: { name: "shell", arguments: '{"command":"ls"}' },
      },
    ],
  });
  assert.deepEqual(deltas, [
    { type: "reasoning", text: "hmm" },
    { type: "tool_call", index: 0, name: "glob" },
    { type: "tool_call", index: 1, name: "shell" },
  ]);
  const second = await model.complete({ messages: [], tools: [], iteration: 6 });
  assert.equal(second.message.content, "all done here");
  assert.deepEqual(second.usage, { inputTokens: 4, outputTokens: 2 });
});

Deno.test("ScriptedModel records deep copies of the requests", async () => {
  const model = new ScriptedModel([{ text: "ok" }]);
  const messages: ChatMessage[] = [{ role: "user", content: "original" }];
  await model.complete({ messages, tools: [], iteration: 1, signal: new AbortController().signal });
  messages[0] = { role: "user", content: "changed" };
  assert.deepEqual(model.requests, [
    { messages: [{ role: "user", content: "original" }], tools: [], iteration: 1 },
  ]);
});

Deno.test("ScriptedModel.complete() maps faults to the real model's errors", async (t) => {
  const cases: [Fault, string][] = [
    [{ type: "status", status: 503 }, "MODEL_ERROR"],
    [{ type: "cut", afterChunks: 2 }, "MODEL_PROTOCOL"],
    [{ type: "malformed" }, "MODEL_PROTOCOL"],
    [{ type: "empty_choices" }, "MODEL_PROTOCOL"],
    [{ type: "reset", afterChunks: 1 }, "MODEL_PROTOCOL"],
  ];
  for (const [fault, code] of cases) {
    await t.step(fault.type, async () => {
      const model = new ScriptedModel([{ text: "some text here", fault }]);
      const err = await model.complete({ messages: [], tools: [], iteration: 1 }).catch((e) => e);
      assert.ok(err instanceof OdekError, String(err));
      assert.equal(err.code, code);
    });
  }
  await t.step("no_done", async () => {
    const model = new ScriptedModel([{ text: "fine", fault: { type: "no_done" } }]);
    const res = await model.complete({ messages: [], tools: [], iteration: 1 });
    assert.equal(res.message.content, "fine");
  });
});

Deno.test("ScriptedModel.complete() stalls after the first chunks until the signal aborts", async () => {
  const controller = new AbortController();
  const model = new ScriptedModel([{
    text: "one two three",
    fault: { type: "stall", afterChunks: 2 },
  }]);
  const seen: string[] = [];
  const err = await model.complete(
    { messages: [], tools: [], iteration: 1, signal: controller.signal },
    (d) => {
      if (d.type === "text") seen.push(d.text);
      queueMicrotask(() => controller.abort());
    },
  ).catch((e) => e);
  assert.equal(err, controller.signal.reason);
  assert.deepEqual(seen, ["one "], "the role chunk and one text chunk, then nothing");
});

Deno.test("ScriptedModel.complete() throws MODEL_ERROR past the end of the script", async () => {
  const model = new ScriptedModel([]);
  const err = await model.complete({ messages: [], tools: [], iteration: 1 }).catch((e) => e);
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /no scripted turn 1/);
});

Deno.test("ScriptedModel.complete() hangs until the signal aborts", async () => {
  const controller = new AbortController();
  const model = new ScriptedModel((request, index) => {
    assert.equal(request.iteration, 1);
    assert.equal(index, 0);
    queueMicrotask(() => controller.abort());
    return { fault: { type: "hang" } };
  });
  const err = await model.complete({
    messages: [],
    tools: [],
    iteration: 1,
    signal: controller.signal,
  })
    .catch((e) => e);
  assert.equal(err, controller.signal.reason);
  assert.equal(err.name, "AbortError");
});
