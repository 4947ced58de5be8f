import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { toWireMessages } from "../../src/llm/to_wire_messages.ts";

const call = (id: string, args: string) => ({
  id,
  type: "function" as const,
  function: { name: "glob", arguments: args },
});

const HISTORY: ChatMessage[] = [
  { role: "system", content: "s" },
  { role: "user", content: "u" },
  {
    role: "assistant",
    content: null,
    reasoning_content: "thinking",
    tool_calls: [
      call("call_abc", '{"pattern":"*"}'),
      call("it1-call1", " \n\t "),
      call("x", '{"a":'),
      call("y", "null"),
    ],
  },
  { role: "tool", tool_call_id: "call_abc", content: "1" },
  { role: "tool", tool_call_id: "it1-call1", content: "2" },
  { role: "tool", tool_call_id: "x", content: "3" },
  { role: "tool", tool_call_id: "y", content: "4" },
];

Deno.test("toWireMessages() sends every tool call's arguments as a JSON object, without changing the transcript", () => {
  const before = structuredClone(HISTORY);
  const sent = toWireMessages(HISTORY);
  assert.deepEqual(HISTORY, before);
  const assistant = sent[2];
  assert.equal(assistant.role, "assistant");
  assert.deepEqual(
    assistant.role === "assistant" && assistant.tool_calls?.map((c) => c.function.arguments),
    ['{"pattern":"*"}', "{}", "{}", "{}"],
  );
  assert.equal(assistant.role === "assistant" && assistant.reasoning_content, "thinking");
  assert.deepEqual(sent.slice(3), HISTORY.slice(3));
});

Deno.test("toWireMessages() drops reasoning_content where the provider refuses it", () => {
  const [, , assistant] = toWireMessages(HISTORY, { echoReasoning: false });
  assert.ok(assistant.role === "assistant" && !("reasoning_content" in assistant));
});

Deno.test("toWireMessages() rewrites ids to nine letters and digits for alnum9, the same in every request", () => {
  const first = toWireMessages(HISTORY, { toolCallIds: "alnum9" });
  const again = toWireMessages(structuredClone(HISTORY), { toolCallIds: "alnum9" });
  assert.deepEqual(first, again);
  const assistant = first[2];
  const ids = assistant.role === "assistant" ? assistant.tool_calls!.map((c) => c.id) : [];
  for (const id of ids) assert.match(id, /^[A-Za-z0-9]{9}$/);
  assert.equal(new Set(ids).size, ids.length);
  const results = first.slice(3).map((m) => m.role === "tool" ? m.tool_call_id : "");
  assert.deepEqual(results, ids, "results keep pointing at their calls");
  const kept = toWireMessages(
    [{ role: "tool", tool_call_id: "Ab3dE6gH9", content: "" }],
    { toolCallIds: "alnum9" },
  );
  assert.equal(kept[0].role === "tool" && kept[0].tool_call_id, "Ab3dE6gH9");
});
