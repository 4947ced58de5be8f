/** Invariants every request of a long run must satisfy, checked on what the fake server received. */
import assert from "node:assert/strict";

interface WireMessage {
  role: string;
  content?: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string }[];
}

/**
 * Assert: no tool message without its call (the assistant message right before its run of
 * results), no call without all its results right after it, the head (`head` messages) present
 * first and unchanged.
 */
export function assertWellFormed(messages: WireMessage[], head: WireMessage[], label: string) {
  for (let i = 0; i < head.length; i++) {
    assert.deepEqual(
      { role: messages[i]?.role, content: messages[i]?.content },
      { role: head[i].role, content: head[i].content },
      `${label}: head message ${i} missing or changed`,
    );
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "tool") {
      assert.fail(`${label}: tool message ${i} (${message.tool_call_id}) without its call`);
    }
    if (message.role !== "assistant" || !message.tool_calls?.length) continue;
    const expected = message.tool_calls.map((c) => c.id);
    const got: string[] = [];
    while (messages[i + 1]?.role === "tool") got.push(messages[++i].tool_call_id!);
    assert.deepEqual(got, expected, `${label}: the results of message ${i} do not match its calls`);
  }
}
