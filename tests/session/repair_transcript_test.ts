import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { repairTranscript } from "../../src/session/repair_transcript.ts";
import { call } from "./_store_harness.ts";

const user = (content: string): ChatMessage => ({ role: "user", content });
const asks = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const result = (id: string, content = `r-${id}`): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  content,
});
const shape = (messages: ChatMessage[]) =>
  messages.map((m) =>
    m.role === "tool"
      ? `tool:${m.tool_call_id}${m.content.startsWith("error (interrupted)") ? "!" : ""}`
      : m.role
  );

Deno.test("repairTranscript() answers the 2 missing calls of a 3-call batch in call order", () => {
  const input = [user("go"), asks("c1", "c2", "c3"), result("c2")];
  const frozen = structuredClone(input);
  const { messages, repairedToolCallIds } = repairTranscript(input);
  assert.deepEqual(repairedToolCallIds, ["c1", "c3"]);
  assert.deepEqual(shape(messages), ["user", "assistant", "tool:c1!", "tool:c2", "tool:c3!"]);
  assert.equal(
    messages[2].content,
    "error (interrupted): Tool call c1 (shell) was interrupted before completion (odek stopped); it was not " +
      "re-run and may have had partial effects. Check its effects before retrying.",
  );
  assert.deepEqual(input, frozen, "input must not be modified");
  assert.deepEqual(repairTranscript(messages), { messages, repairedToolCallIds: [], pending: [] });
});

Deno.test("repairTranscript() handles each transcript shape", async (t) => {
  const cases: { name: string; input: ChatMessage[]; want: string[]; repaired: string[] }[] = [
    {
      name: "no tool calls",
      input: [user("a"), { role: "assistant", content: "b" }],
      want: ["user", "assistant"],
      repaired: [],
    },
    {
      name: "complete batch journaled in completion order comes back in call order",
      input: [asks("c1", "c2"), result("c2"), result("c1")],
      want: ["assistant", "tool:c1", "tool:c2"],
      repaired: [],
    },
    {
      name: "batch with no result at all",
      input: [asks("c1", "c2")],
      want: ["assistant", "tool:c1!", "tool:c2!"],
      repaired: ["c1", "c2"],
    },
    {
      name: "orphan result dropped",
      input: [result("ghost"), user("a")],
      want: ["user"],
      repaired: [],
    },
    {
      name: "second result for a call dropped",
      input: [asks("c1"), result("c1", "first"), result("c1", "again")],
      want: ["assistant", "tool:c1"],
      repaired: [],
    },
    {
      name: "late result moved back into its batch",
      input: [asks("c1", "c2"), result("c1"), user("hi"), result("c2")],
      want: ["assistant", "tool:c1", "tool:c2", "user"],
      repaired: [],
    },
    {
      name: "interrupted batch in the middle",
      input: [asks("c1"), user("hi"), asks("c2"), result("c2")],
      want: ["assistant", "tool:c1!", "user", "assistant", "tool:c2"],
      repaired: ["c1"],
    },
    {
      name: "reused id belongs to the nearest call",
      input: [asks("x"), result("x"), asks("x"), result("x")],
      want: ["assistant", "tool:x", "assistant", "tool:x"],
      repaired: [],
    },
    {
      name: "reused id: the older call unanswered",
      input: [asks("x"), asks("x"), result("x")],
      want: ["assistant", "tool:x!", "assistant", "tool:x"],
      repaired: ["x"],
    },
  ];
  for (const { name, input, want, repaired } of cases) {
    await t.step(name, () => {
      const out = repairTranscript(input);
      assert.deepEqual(shape(out.messages), want);
      assert.deepEqual(out.repairedToolCallIds, repaired);
    });
  }
});
