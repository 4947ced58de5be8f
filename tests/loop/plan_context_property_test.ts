/** Random transcripts and limits: every planned request keeps its invariants. */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { estimateMessageTokens } from "../../src/loop/estimate_tokens.ts";
import { buildRequest, type ContextState, planTrim } from "../../src/loop/plan_context.ts";
import { splitTurnGroups } from "../../src/loop/turn_groups.ts";
import { assertWellFormed } from "./_context_checks.ts";

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isPlan = (m: ChatMessage) => m.role === "system" && m.content.startsWith("# Plan");

function randomTranscript(random: () => number): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: "system", content: "sys" },
    ...(random() < 0.5 ? [{ role: "system" as const, content: "agents" }] : []),
    { role: "user", content: "task" },
  ];
  const groups = 1 + Math.floor(random() * 60);
  for (let g = 0; g < groups; g++) {
    const kind = random();
    if (kind < 0.65) {
      const calls = 1 + Math.floor(random() * 3);
      const ids = Array.from({ length: calls }, (_, i) => `g${g}c${i}`);
      messages.push({
        role: "assistant",
        content: random() < 0.3 ? "thinking ".repeat(Math.floor(random() * 50)) : null,
        tool_calls: ids.map((id) => ({
          id,
          type: "function",
          function: { name: "shell", arguments: JSON.stringify({ command: "x" }) },
        })),
      });
      for (const id of ids) {
        messages.push({
          role: "tool",
          tool_call_id: id,
          content: "r".repeat(Math.floor(random() * 6000)),
        });
      }
      if (random() < 0.05) messages.push({ role: "tool", tool_call_id: "orphan", content: "o" });
    } else if (kind < 0.8) {
      messages.push({ role: "assistant", content: "note ".repeat(Math.floor(random() * 100)) });
    } else if (kind < 0.9) {
      messages.push({ role: "user", content: "more ".repeat(Math.floor(random() * 30)) });
    } else {
      messages.push({ role: "system", content: `# Plan v${g}` });
    }
  }
  return messages;
}

Deno.test("planTrim() + buildRequest() on 500 random transcripts: head, groups whole, protected kept, under the limit when possible", () => {
  const random = prng(42);
  for (let run = 0; run < 500; run++) {
    const messages = randomTranscript(random);
    const layout = splitTurnGroups(messages, isPlan);
    const input = {
      messages,
      layout,
      keepRecentToolResults: Math.floor(random() * 6),
      fixedTokens: Math.floor(random() * 500),
    };
    const start: ContextState = { coveredUntil: layout.headEnd, markUntil: 0 };
    const limit = Math.floor(random() * 20_000);
    const { state } = planTrim(input, start, limit);
    const built = buildRequest(input, state);
    const sent = [...built.head, ...built.body];
    const label = `run ${run}`;
    assertWellFormed(sent, messages.slice(0, layout.headEnd), label);
    // Protected messages and the newest group are always sent.
    for (const group of layout.groups) {
      if (group.protected) assert.ok(sent.includes(messages[group.start]), `${label}: lost`);
    }
    assert.ok(sent.includes(messages[layout.groups.at(-1)!.start]), `${label}: newest lost`);
    // The estimate is what buildRequest says, and over the limit only when nothing else can go.
    const counted = input.fixedTokens + sent.reduce((n, m) => n + estimateMessageTokens(m), 0);
    assert.equal(built.tokens, counted, label);
    if (built.tokens > limit) {
      const droppable = layout.groups.slice(0, -1).filter((g) =>
        !g.protected && sent.includes(messages[g.start])
      );
      assert.deepEqual(droppable, [], `${label}: over the limit with groups left to drop`);
    }
  }
});
