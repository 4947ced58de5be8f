/**
 * The session's call records (design §8.3), spend, tool-call ids and load repairs, against both
 * stores.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { repairToolCalls } from "../../src/session/repair_tool_calls.ts";
import { call, steppingClock, STORE_KINDS } from "./_store_harness.ts";

const init = { workspace: "/w", model: "m1", baseUrl: "http://127.0.0.1:1", title: "t" };
const verdict: Verdict = {
  parts: [{
    riskClass: "network",
    subject: "curl http://127.0.0.1:1/secret-token-0001",
    targets: [],
  }],
  decision: "ask",
  reason: "network asks",
};
const batch = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => call(id)),
});

for (const kind of STORE_KINDS) {
  Deno.test(`${kind.name}: a reopened batch tells what ran, what waited for approval, what never started`, async () => {
    const h = await kind.make({
      now: steppingClock(),
      redact: (text) => text.replaceAll("secret-token-0001", "[REDACTED]"),
    });
    try {
      const session = await h.store.create({ ...init, id: "s" });
      await session.append({ role: "user", content: "go" });
      await session.append(batch("done", "cut", "asked", "never"));
      await session.recordToolStarted("done");
      await session.append({ role: "tool", tool_call_id: "done", content: "ok" });
      await session.recordToolStarted("cut");
      await session.recordApprovalRequested([{ callId: "asked", verdict }]);
      // Live: the host sees the stopped batch at once.
      assert.deepEqual(session.pendingToolCalls.map((p) => [p.call.id, p.state]), [
        ["cut", "started"],
        ["asked", "awaiting_approval"],
        ["never", "not_started"],
      ]);
      await session.close();
      const raw = (await h.raw("s"))!;
      assert.ok(raw.indexOf('"call_tracking"') < raw.indexOf('"tool_calls"'), "marker first");
      assert.doesNotMatch(raw, /secret-token-0001/, "the verdict is redacted");
      const reopened = await h.store.open("s");
      // The started call is answered interrupted at load; the others wait for the next run.
      assert.deepEqual(reopened.repairedToolCallIds, ["cut"]);
      assert.deepEqual(reopened.pendingToolCalls.map((p) => [p.call.id, p.state]), [
        ["asked", "awaiting_approval"],
        ["never", "not_started"],
      ]);
      const asked = reopened.pendingToolCalls[0];
      assert.equal(asked.state === "awaiting_approval" && asked.verdict.decision, "ask");
      assert.equal(
        asked.state === "awaiting_approval" && asked.verdict.parts[0].subject,
        "curl http://127.0.0.1:1/[REDACTED]",
      );
      assert.match(
        String(
          reopened.messages.find((m) => m.role === "tool" && m.tool_call_id === "cut")?.content,
        ),
        /^error \(interrupted\)/,
      );
      // Two of four calls have an outcome: the pending ones are not spent yet.
      assert.equal(reopened.spend.toolCalls, 2);
      await reopened.close();
    } finally {
      await h.cleanup();
    }
  });

  Deno.test(`${kind.name}: a journal without call records keeps the old rule: every unanswered call may have run`, async () => {
    const lines = [
      JSON.stringify({
        t: "meta",
        v: 1,
        id: "old",
        createdAt: "2026-01-01T00:00:00.000Z",
        ...init,
      }),
      JSON.stringify({ t: "message", at: "2026-01-01T00:00:01.000Z", message: batch("a", "b") }),
    ];
    const h = await kind.make({ journals: { old: `${lines.join("\n")}\n` } });
    try {
      const session = await h.store.open("old");
      assert.deepEqual(session.repairedToolCallIds, ["a", "b"]);
      assert.deepEqual(session.pendingToolCalls, []);
      await session.close();
    } finally {
      await h.cleanup();
    }
  });

  Deno.test(`${kind.name}: usage records add up per model, across reopens and model changes`, async () => {
    const h = await kind.make({ now: steppingClock() });
    try {
      const session = await h.store.create({ ...init, id: "u" });
      await session.recordUsage({ inputTokens: 100, outputTokens: 10 });
      await session.updateMeta({ model: "m2" });
      await session.recordUsage({ inputTokens: 50, outputTokens: 5 });
      await session.close();
      const again = await h.store.open("u");
      await again.recordUsage({ inputTokens: 1, outputTokens: 1 });
      assert.deepEqual(again.spend, {
        inputTokens: 151,
        outputTokens: 16,
        toolCalls: 0,
        byModel: {
          m1: { inputTokens: 100, outputTokens: 10 },
          m2: { inputTokens: 51, outputTokens: 6 },
        },
      });
      await again.close();
    } finally {
      await h.cleanup();
    }
  });

  Deno.test(`${kind.name}: toolCallIds holds every id of the journal, repaired ones included`, async () => {
    const h = await kind.make();
    try {
      const session = await h.store.create({ ...init, id: "i" });
      await session.append(batch("x1"));
      await session.append({ role: "tool", tool_call_id: "x1", content: "ok" });
      await session.append(batch("x1"));
      await session.append({ role: "tool", tool_call_id: "x1", content: "ok" });
      await session.close();
      const again = await h.store.open("i");
      assert.deepEqual([...again.toolCallIds].sort(), ["x1", "x1-r2"]);
      assert.deepEqual(again.toolCallRepairs, [
        { message: 2, position: 0, id: "x1-r2", originalId: "x1" },
      ]);
      await again.close();
    } finally {
      await h.cleanup();
    }
  });

  Deno.test(`${kind.name}: a torn tail is named by the open that set it aside`, async () => {
    const lines = [
      JSON.stringify({
        t: "meta",
        v: 1,
        id: "torn",
        createdAt: "2026-01-01T00:00:00.000Z",
        ...init,
      }),
      '{"t":"message","at":"2026',
    ];
    const h = await kind.make({ journals: { torn: lines.join("\n") } });
    try {
      const session = await h.store.open("torn");
      assert.equal(session.tornTail?.bytes, lines[1].length);
      assert.match(session.tornTail!.path, /torn/);
      await session.close();
      const again = await h.store.open("torn");
      assert.equal(again.tornTail, undefined, "said once");
      await again.close();
    } finally {
      await h.cleanup();
    }
  });
}

Deno.test("repairToolCalls() gives each of two results of one duplicated pair its own call", () => {
  const { messages } = repairToolCalls([
    batch("d", "d"),
    { role: "tool", tool_call_id: "d", content: "first" },
    { role: "tool", tool_call_id: "d", content: "second" },
  ]);
  assert.deepEqual(
    messages.map((m) => m.role === "tool" ? `${m.tool_call_id}:${m.content}` : "asst"),
    [
      "asst",
      "d:first",
      "d-r2:second",
    ],
  );
});

Deno.test("repairToolCalls() applies recorded repairs as recorded and adds only new ones", () => {
  const input = [
    batch("a"),
    { role: "tool" as const, tool_call_id: "a", content: "x" },
    batch("a"),
  ];
  const first = repairToolCalls(input);
  assert.equal(first.added.length, 1);
  const second = repairToolCalls(input, first.repairs);
  assert.deepEqual(second.added, []);
  assert.deepEqual(second.messages, first.messages);
});
