/**
 * What the loop tells the journal beyond messages: fresh ids for ids the session already holds
 * (issue 14, case 2), each model request's usage (case 6), and the call records of design §8.3.
 */
import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import type { TranscriptJournal } from "../../src/loop/run_context.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

const START: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "task" },
];

/** A journal that keeps every record it is given, in order, as `[kind, detail]`. */
function recordingJournal(toolCallIds: string[] = []) {
  const records: [string, unknown][] = [];
  const journal: TranscriptJournal = {
    append: (message) => Promise.resolve(void records.push(["message", structuredClone(message)])),
    recordUsage: (usage) => Promise.resolve(void records.push(["usage", { ...usage }])),
    recordToolStarted: (id) => Promise.resolve(void records.push(["tool_started", id])),
    recordApprovalRequested: (requests) =>
      Promise.resolve(void records.push(["approval_requested", requests.map((r) => r.callId)])),
    toolCallIds: new Set(toolCallIds),
  };
  return { journal, records };
}

async function run(turns: ScriptedTurn[], journal: TranscriptJournal) {
  return await runAgent({
    model: new ScriptedModel(turns),
    broker: new FakeBroker(() => ({ ok: true, output: "ok" })),
    journal,
    messages: START,
    tools: new ToolSet(),
    runId: "0".repeat(32),
  });
}

Deno.test("runAgent() gives a call whose id the session already holds a fresh one before it is journaled", async () => {
  // it1-call0 and call_9 were used by earlier runs of the session (a resume, a rewound turn).
  const { journal, records } = recordingJournal(["it1-call0", "call_9", "call_9-r2"]);
  const outcome = await run([
    {
      toolCalls: [
        { id: null, name: "glob", arguments: { pattern: "*.a" } },
        { id: "call_9", name: "glob", arguments: { pattern: "*.b" } },
        { id: "new", name: "glob", arguments: { pattern: "*.c" } },
      ],
    },
    { text: "done" },
  ], journal);
  assert.equal(outcome.type, "completed");
  const asked = records.find(([kind, m]) =>
    kind === "message" && (m as ChatMessage).role === "assistant"
  )![1] as Extract<ChatMessage, { role: "assistant" }>;
  assert.deepEqual(asked.tool_calls!.map((c) => c.id), ["it1-call0-r2", "call_9-r3", "new"]);
  const results = records.filter(([kind, m]) =>
    kind === "message" && (m as ChatMessage).role === "tool"
  );
  // Results are journaled as they complete (parallel calls): compare them as a set.
  assert.deepEqual(
    results.map(([, m]) => (m as { tool_call_id: string }).tool_call_id).sort(),
    ["call_9-r3", "it1-call0-r2", "new"],
  );
});

Deno.test("runAgent() journals each request's usage after its turn, and a start before each call runs", async () => {
  const { journal, records } = recordingJournal();
  await run([
    {
      toolCalls: [{ id: "a", name: "glob", arguments: { pattern: "*" } }],
      usage: { prompt_tokens: 70, completion_tokens: 7 },
    },
    { text: "done", usage: { prompt_tokens: 80, completion_tokens: 8 } },
  ], journal);
  const kinds = records.map(([kind, detail]) =>
    kind === "message" ? `message:${(detail as ChatMessage).role}` : kind
  );
  assert.deepEqual(kinds, [
    "message:assistant",
    "usage",
    "tool_started",
    "message:tool",
    "message:assistant",
    "usage",
  ]);
  assert.deepEqual(records.filter(([k]) => k === "usage").map(([, u]) => u), [
    { inputTokens: 70, outputTokens: 7 },
    { inputTokens: 80, outputTokens: 8 },
  ]);
});

Deno.test("runAgent() with prior spend: the budget counts the session, and an over-budget prompt is not sent", async () => {
  const { journal } = recordingJournal();
  const model = new ScriptedModel([{ text: "never" }]);
  const outcome = await runAgent({
    model,
    broker: new FakeBroker(() => ({ ok: true, output: "ok" })),
    journal,
    messages: START,
    tools: new ToolSet(),
    runId: "0".repeat(32),
    budgets: { maxInputTokens: 1000 },
    priorSpend: { inputTokens: 995 },
  });
  assert.equal(model.requests.length, 0);
  assert.equal(outcome.type, "budget_exceeded");
  assert.equal(outcome.type === "budget_exceeded" && outcome.breach.limit_name, "input_tokens");
  assert.equal(outcome.stats.iterations, 0, "nothing was sent, no turn counted");
});
