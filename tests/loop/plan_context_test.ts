import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { buildRequest, type PlanInput, planTrim } from "../../src/loop/plan_context.ts";
import { splitTurnGroups } from "../../src/loop/turn_groups.ts";

/** Head + `n` groups of one shell call with a `bytes`-byte result each. */
function transcript(n: number, bytes: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "sys" },
    { role: "user", content: "task" },
  ];
  for (let i = 0; i < n; i++) {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "shell", arguments: "{}" } }],
    });
    messages.push({ role: "tool", tool_call_id: `c${i}`, content: `${i}`.padEnd(bytes, "x") });
  }
  return messages;
}

function input(messages: ChatMessage[]): PlanInput {
  return {
    messages,
    layout: splitTurnGroups(messages),
    keepRecentToolResults: 4,
    fixedTokens: 0,
  };
}

Deno.test("planTrim() first turns old large results into markers, keeping the 4 newest whole", () => {
  const messages = transcript(10, 4000);
  const plan = input(messages);
  const full = buildRequest(plan, { coveredUntil: 2, markUntil: 0 });
  assert.equal(full.markers.size, 0);
  // Room for markers but not for all results: nothing is dropped.
  const { state, dropped } = planTrim(plan, { coveredUntil: 2, markUntil: 0 }, 5000);
  assert.equal(dropped.length, 0);
  const built = buildRequest(plan, state);
  assert.equal(built.markers.size, 6);
  assert.ok(built.tokens <= 5000, String(built.tokens));
  const results = built.body.filter((m) => m.role === "tool");
  assert.equal(results.length, 10);
  assert.match(results[0].content, /result of this shell call \(4000 bytes\) was dropped/);
  assert.ok(results.slice(-4).every((m) => m.content.length === 4000));
});

Deno.test("planTrim() then drops the oldest groups whole, never the newest, never the head", () => {
  const messages = transcript(10, 4000);
  const plan = input(messages);
  const { state, dropped } = planTrim(plan, { coveredUntil: 2, markUntil: 0 }, 2500);
  assert.ok(dropped.length > 0);
  assert.deepEqual(dropped[0].indices, [2, 3]);
  const built = buildRequest(plan, state);
  assert.ok(built.tokens <= 2500, String(built.tokens));
  assert.deepEqual(built.head.map((m) => m.role), ["system", "user"]);
  // Every call in the body is followed by exactly its result.
  for (let i = 0; i < built.body.length; i += 2) {
    const call = built.body[i];
    const result = built.body[i + 1];
    assert.equal(call.role, "assistant");
    assert.ok(call.role === "assistant" && result.role === "tool");
    assert.equal(result.tool_call_id, call.tool_calls![0].id);
  }
  // An impossible limit keeps at least the newest group.
  const squeezed = planTrim(plan, { coveredUntil: 2, markUntil: 0 }, 1);
  const last = buildRequest(plan, squeezed.state);
  assert.deepEqual(last.body.map((m) => m.role), ["assistant", "tool"]);
  assert.equal(squeezed.dropped.length, 9);
});

Deno.test("buildRequest() never marks the newest group's results or a protected group's, even with keepRecentToolResults 0", () => {
  const messages = transcript(6, 4000);
  const plan: PlanInput = {
    messages,
    layout: splitTurnGroups(messages, (m) => m.role === "tool" && m.tool_call_id === "c1"),
    keepRecentToolResults: 0,
    fixedTokens: 0,
  };
  const built = buildRequest(plan, { coveredUntil: 2, markUntil: messages.length });
  const whole = built.body.filter((m) => m.role === "tool" && m.content.length === 4000);
  assert.deepEqual(whole.map((m) => m.role === "tool" && m.tool_call_id), ["c1", "c5"]);
  assert.equal(built.markers.size, 4);
});
