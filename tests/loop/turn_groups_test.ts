import assert from "node:assert/strict";
import type { ChatMessage, ToolCall } from "../../src/_util/chat_message.ts";
import { splitTurnGroups } from "../../src/loop/turn_groups.ts";

const call = (id: string): ToolCall => ({
  id,
  type: "function",
  function: { name: "shell", arguments: "{}" },
});

Deno.test("splitTurnGroups() keeps leading system messages and the task in the head", () => {
  const layout = splitTurnGroups([
    { role: "system", content: "sys" },
    { role: "system", content: "agents" },
    { role: "user", content: "task" },
    { role: "assistant", content: "hi" },
  ]);
  assert.equal(layout.headEnd, 3);
  assert.deepEqual(layout.groups.map((g) => g.indices), [[3]]);
});

Deno.test("splitTurnGroups() puts a call and all its results in one group and skips orphans", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "task" },
    { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
    { role: "tool", tool_call_id: "a", content: "A" },
    { role: "tool", tool_call_id: "zz", content: "orphan" },
    { role: "tool", tool_call_id: "b", content: "B" },
    { role: "tool", tool_call_id: "a", content: "second answer to a" },
    { role: "assistant", content: "done" },
  ];
  const layout = splitTurnGroups(messages);
  assert.deepEqual(layout.groups.map((g) => g.indices), [[2, 3, 5], [7]]);
});

Deno.test("splitTurnGroups() protects the newest user message and messages the predicate marks", () => {
  const messages: ChatMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "task" },
    { role: "assistant", content: "one" },
    { role: "system", content: "# Plan\n1. read" },
    { role: "assistant", content: "two" },
    { role: "user", content: "now do more" },
    { role: "assistant", content: "three" },
  ];
  const layout = splitTurnGroups(
    messages,
    (m) => m.role === "system" && m.content.startsWith("# Plan"),
  );
  assert.deepEqual(layout.groups.map((g) => g.protected), [false, true, false, true, false]);
});
