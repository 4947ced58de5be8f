import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import type { Model, ModelRequest } from "../../src/llm/model.ts";
import { COMPACTION_INSTRUCTION } from "../../src/loop/compact_context.ts";
import { type ContextOptions, DIGEST_PREFIX } from "../../src/loop/context_manager.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel, type ScriptedModelRequest } from "../../src/testing/scripted_model.ts";
import { assertWellFormed } from "./_context_checks.ts";

const HEAD: ChatMessage[] = [
  { role: "system", content: "sys prompt" },
  { role: "user", content: "the task" },
];

const isCompaction = (r: ScriptedModelRequest) =>
  r.tools.length === 0 && String(r.messages.at(-1)?.content).startsWith(COMPACTION_INSTRUCTION);

/** A run of `steps` shell calls with `bytes`-byte results; `side` answers compaction calls. */
async function longRun(
  steps: number,
  bytes: number,
  context: ContextOptions,
  side: () => ScriptedTurn = () => ({ text: "the digest" }),
  messages: ChatMessage[] = HEAD,
) {
  let step = 0;
  const model = new ScriptedModel((request) => {
    if (isCompaction(request)) return side();
    step++;
    return step > steps ? { text: "finished" } : {
      toolCalls: [{ id: `s${step}`, name: "shell", arguments: { command: `echo ${step}` } }],
    };
  });
  const broker = new FakeBroker(() => ({ ok: true, output: "o".repeat(bytes) }));
  const journal: ChatMessage[] = [];
  const compactions: { digest: string; coveredUntil: number }[] = [];
  const events: RunEvent[] = [];
  const outcome = await runAgent({
    model,
    broker,
    journal: {
      append: (m) => Promise.resolve(void journal.push(m)),
      recordCompaction: (c) => Promise.resolve(void compactions.push(c)),
    },
    messages,
    tools: new ToolSet(),
    maxIterations: steps + 20,
    runId: "0".repeat(32),
    onEvent: (e) => events.push(e),
    context,
  });
  const main = model.requests.filter((r) => !isCompaction(r));
  const sideCalls = model.requests.filter(isCompaction);
  return { outcome, journal, compactions, events, main, sideCalls };
}

const of = <T extends RunEvent["type"]>(events: RunEvent[], type: T) =>
  events.filter((e) => e.type === type) as Extract<RunEvent, { type: T }>[];

Deno.test("a compaction side call keeps the system prompt, offers no tools, is capped by max_tokens and its digest follows the head", async () => {
  const run = await longRun(40, 3000, { window: 8192, compactionMaxTokens: 256 });
  assert.equal(run.outcome.type, "completed");
  assert.ok(run.sideCalls.length > 0);
  for (const call of run.sideCalls) {
    assert.deepEqual(call.messages[0], HEAD[0]);
    assert.equal(call.messages.length, 2);
    assert.equal(call.maxTokens, 256);
    // The input is bounded: at most half the target (8192 − 2048) × 0.6 / 2 tokens × 4 bytes.
    assert.ok(String(call.messages[1].content).length < 8000, "side-call input not capped");
  }
  // The second side call folds in the first digest.
  assert.match(String(run.sideCalls.at(-1)!.messages[1].content), /Summary of the run before/);
  const last = run.main.at(-1)!.messages;
  assert.ok(String(last[2].content).startsWith(DIGEST_PREFIX));
  assert.match(String(last[2].content), /the digest/);
  for (const [n, r] of run.main.entries()) assertWellFormed(r.messages, HEAD, `request ${n}`);
  // The journal keeps every message (trimming changes only what is sent) and got the digests.
  assert.equal(run.journal.filter((m) => m.role === "tool").length, 40);
  assert.equal(run.compactions.length, run.sideCalls.length);
  assert.ok(run.compactions.every((c) => c.digest === "the digest" && c.coveredUntil > 2));
  const done = of(run.events, "compaction_completed");
  assert.equal(done.length, run.sideCalls.length);
  assert.ok(done[0].data.dropped_groups > 0 && done[0].data.digest_tokens > 0);
  const trims = of(run.events, "context_trimmed");
  assert.ok(trims.length > 0 && trims.every((t) => t.data.mode === "proactive"));
  assert.ok(trims.every((t) => t.data.window === 8192));
});

Deno.test("the first trim replaces old large results with markers before it drops any group", async () => {
  const run = await longRun(40, 3000, { window: 32_768 });
  assert.equal(run.outcome.type, "completed");
  const first = of(run.events, "context_trimmed")[0];
  assert.ok(first, "no trim happened");
  assert.equal(first.data.dropped_groups, 0);
  assert.ok(first.data.truncated_results > 20, JSON.stringify(first.data));
  assert.ok(first.data.estimated_tokens < 0.6 * (32_768 - 4096), JSON.stringify(first.data));
  assert.equal(run.sideCalls.length, 0);
  const last = run.main.at(-1)!.messages.filter((m) => m.role === "tool");
  assert.equal(last.length, 40, "a group was dropped");
  // The 4 newest are whole (fenced as untrusted output), the oldest is a marker.
  assert.ok(last.slice(-4).every((m) => m.content.includes("o".repeat(3000))));
  assert.match(
    last[0].content,
    /^\[odek: the result of this shell call \(\d+ bytes\) was dropped/,
  );
});

Deno.test("a failed compaction emits compaction_failed and falls back to plain dropping", async () => {
  const run = await longRun(
    30,
    3000,
    { window: 8192 },
    () => ({ fault: { type: "status", status: 500 } }),
  );
  assert.equal(run.outcome.type, "completed");
  const failed = of(run.events, "compaction_failed");
  assert.ok(failed.length > 0);
  assert.match(failed[0].data.reason, /500/);
  assert.equal(of(run.events, "compaction_completed").length, 0);
  assert.equal(run.compactions.length, 0);
  for (const [n, r] of run.main.entries()) {
    assertWellFormed(r.messages, HEAD, `request ${n}`);
    assert.ok(!r.messages.some((m) => String(m.content).startsWith(DIGEST_PREFIX)));
  }
  assert.ok(run.main.at(-1)!.messages.length < run.journal.length, "nothing was dropped");
});

Deno.test("with compaction off, groups are dropped without a side call", async () => {
  const run = await longRun(30, 3000, { window: 8192, compaction: false });
  assert.equal(run.outcome.type, "completed");
  assert.equal(run.sideCalls.length, 0);
  assert.ok(of(run.events, "context_trimmed").some((t) => t.data.dropped_groups > 0));
});

Deno.test("a resumed digest is sent after the head and the groups it covers are left out", async () => {
  const call = (id: string) => ({
    id,
    type: "function" as const,
    function: { name: "shell", arguments: "{}" },
  });
  const earlier: ChatMessage[] = [
    ...HEAD,
    { role: "assistant", content: null, tool_calls: [call("old1")] },
    { role: "tool", tool_call_id: "old1", content: "old output 1" },
    { role: "assistant", content: null, tool_calls: [call("old2")] },
    { role: "tool", tool_call_id: "old2", content: "old output 2" },
    { role: "user", content: "continue please" },
  ];
  const run = await longRun(
    1,
    10,
    {
      resume: { digest: "earlier: ran old1", coveredUntil: 4 },
    },
    undefined,
    earlier,
  );
  const first = run.main[0].messages;
  assert.deepEqual(first.slice(0, 2), HEAD);
  assert.ok(String(first[2].content).startsWith(DIGEST_PREFIX));
  assert.match(String(first[2].content), /earlier: ran old1/);
  assert.ok(!first.some((m) => m.role === "tool" && m.tool_call_id === "old1"));
  assert.ok(first.some((m) => m.role === "tool" && m.tool_call_id === "old2"));
  assertWellFormed(first, HEAD, "first request");
});

Deno.test("messages the isProtected predicate marks are never dropped", async () => {
  const plan: ChatMessage = { role: "system", content: "# Plan\n1. step one" };
  let step = 0;
  const model = new ScriptedModel(() => {
    step++;
    return step > 30 ? { text: "ok" } : {
      toolCalls: [{ id: `s${step}`, name: "shell", arguments: { command: "x" } }],
    };
  });
  const messages: ChatMessage[] = [...HEAD, { role: "assistant", content: "thinking" }, plan];
  await runAgent({
    model,
    broker: new FakeBroker(() => ({ ok: true, output: "p".repeat(3000) })),
    journal: { append: () => Promise.resolve() },
    messages,
    tools: new ToolSet(),
    runId: "0".repeat(32),
    context: {
      window: 8192,
      compaction: false,
      isProtected: (m) => m.role === "system" && m.content.startsWith("# Plan"),
    },
  });
  const last = model.requests.at(-1)!.messages;
  assert.ok(!last.some((m) => m.content === "thinking"), "the old group was not dropped");
  assert.ok(last.some((m) => m.content === plan.content), "the plan was dropped");
});

/** A model that refuses (like a provider) any request over `limit` estimated bytes / 4. */
class RefusingModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #inner: ScriptedModel;
  readonly #limit: number;
  constructor(inner: ScriptedModel, limit: number) {
    this.#inner = inner;
    this.#limit = limit;
  }
  complete(request: ModelRequest) {
    this.requests.push(request);
    const tokens = Math.ceil(JSON.stringify(request.messages).length / 4);
    if (tokens > this.#limit) {
      return Promise.reject(
        new OdekError("CONTEXT_LENGTH_EXCEEDED", `request of ${tokens} tokens is too long`),
      );
    }
    return this.#inner.complete(request);
  }
}

Deno.test("a context-length refusal gets a survival trim (head + newest group) and one retry", async () => {
  let step = 0;
  const inner = new ScriptedModel(() => {
    step++;
    return step > 12 ? { text: "survived" } : {
      // Distinct commands: three identical calls in a row would add a stall hint.
      toolCalls: [{ id: `s${step}`, name: "shell", arguments: { command: `x${step}` } }],
    };
  });
  // The configured window is far larger than what the "provider" accepts: only survival helps.
  const model = new RefusingModel(inner, 4000);
  const events: RunEvent[] = [];
  const outcome = await runAgent({
    model,
    broker: new FakeBroker(() => ({ ok: true, output: "q".repeat(3000) })),
    journal: { append: () => Promise.resolve() },
    messages: HEAD,
    tools: new ToolSet(),
    runId: "0".repeat(32),
    onEvent: (e) => events.push(e),
    context: { window: 1_000_000, compaction: false },
  });
  assert.equal(outcome.type, "completed");
  const survival = of(events, "context_trimmed").filter((e) => e.data.mode === "survival");
  assert.ok(survival.length > 0);
  assert.ok(survival[0].data.dropped_groups > 0);
  // The request after the refusal: head, then the newest group only.
  const refusedAt = model.requests.findIndex((r) =>
    Math.ceil(JSON.stringify(r.messages).length / 4) > 4000
  );
  const retry = model.requests[refusedAt + 1].messages;
  assert.deepEqual(retry.slice(0, 2), HEAD);
  assert.deepEqual(retry.slice(2).map((m) => m.role), ["assistant", "tool"]);
  assertWellFormed(retry, HEAD, "retry");
});

Deno.test("a second context-length refusal fails the run after exactly one retry", async () => {
  const inner = new ScriptedModel([{ text: "never" }]);
  const model = new RefusingModel(inner, 1);
  const outcome = await runAgent({
    model,
    broker: new FakeBroker(() => ({ ok: true, output: "" })),
    journal: { append: () => Promise.resolve() },
    messages: HEAD,
    tools: new ToolSet(),
    runId: "0".repeat(32),
  });
  assert.equal(outcome.type, "failed");
  assert.equal(
    outcome.type === "failed" && (outcome.error as OdekError).code,
    "CONTEXT_LENGTH_EXCEEDED",
  );
  assert.equal(model.requests.length, 2);
});

Deno.test("calibration: a provider that counts 3× the estimate makes trimming start earlier", async () => {
  const trimsAt = async (factor: number) => {
    let step = 0;
    const model = new ScriptedModel((request) => {
      step++;
      const estimate = Math.ceil(JSON.stringify(request.messages).length / 4);
      const usage = { prompt_tokens: estimate * factor, completion_tokens: 1 };
      return step > 20 ? { text: "ok", usage } : {
        // Each call differs: the same call with the same result six times is a stall.
        toolCalls: [{ id: `s${step}`, name: "shell", arguments: { command: `x${step}` } }],
        usage,
      };
    });
    const events: RunEvent[] = [];
    await runAgent({
      model,
      broker: new FakeBroker(() => ({ ok: true, output: "c".repeat(2000) })),
      journal: { append: () => Promise.resolve() },
      messages: HEAD,
      tools: new ToolSet(),
      runId: "0".repeat(32),
      onEvent: (e) => events.push(e),
      context: { window: 32_768, compaction: false },
    });
    return events.find((e) => e.type === "context_trimmed")?.iteration ?? Infinity;
  };
  const plain = await trimsAt(1);
  const tight = await trimsAt(3);
  assert.ok(tight < plain, `trim at iteration ${tight} (3×) vs ${plain} (1×)`);
});

Deno.test("survival cuts the newest group's results when even they do not fit", async () => {
  let step = 0;
  const inner = new ScriptedModel(() => {
    step++;
    return step > 1 ? { text: "read the huge file" } : {
      toolCalls: [{ id: "huge", name: "shell", arguments: { command: "cat huge.log" } }],
    };
  });
  const model = new RefusingModel(inner, 20_000);
  const events: RunEvent[] = [];
  const outcome = await runAgent({
    model,
    broker: new FakeBroker(() => ({ ok: true, output: "h".repeat(400_000) })),
    journal: { append: () => Promise.resolve() },
    messages: HEAD,
    tools: new ToolSet(),
    runId: "0".repeat(32),
    onEvent: (e) => events.push(e),
    context: { window: 32_768, compaction: false },
    // A cap above the result's size, so that only the survival cut can shorten it.
    toolOutput: { maxBytes: 1_048_576, headBytes: 786_432, tailBytes: 262_144 },
  });
  assert.equal(outcome.type, "completed");
  const retry = model.requests.at(-1)!.messages;
  const result = retry.find((m) => m.role === "tool")!;
  assert.match(
    result.content,
    /<\/untrusted_content_[0-9a-f]{16}>\n\[odek: cut to fit the context window: \d+ of 400\d{3} bytes dropped/,
  );
  assert.ok(result.content.length < 100_000);
  const survival = of(events, "context_trimmed").find((e) => e.data.mode === "survival");
  assert.equal(survival?.data.truncated_results, 1);
});

Deno.test("compactFirst folds every earlier group into the digest before the first request, however small", async () => {
  const call = (id: string) => ({
    id,
    type: "function" as const,
    function: { name: "shell", arguments: "{}" },
  });
  const earlier: ChatMessage[] = [
    ...HEAD,
    { role: "assistant", content: null, tool_calls: [call("old1")] },
    { role: "tool", tool_call_id: "old1", content: "old output 1" },
    { role: "assistant", content: "first answer" },
    { role: "user", content: "now the next thing" },
  ];
  const run = await longRun(
    0,
    10,
    { compactFirst: true },
    () => ({ text: "we ran old1" }),
    earlier,
  );
  assert.equal(run.sideCalls.length, 1, "one side call, although the context is tiny");
  assert.match(String(run.sideCalls[0].messages.at(-1)?.content), /old output 1/);
  const first = run.main[0].messages;
  assert.deepEqual(first.slice(0, 2), HEAD);
  assert.match(String(first[2].content), /we ran old1/);
  assert.ok(!first.some((m) => m.role === "tool" || m.content === "first answer"));
  assert.equal(first.at(-1)?.content, "now the next thing", "the newest group is sent");
  assertWellFormed(first, HEAD, "first request");
  assert.deepEqual(run.compactions.map((c) => c.coveredUntil), [5]);
  const trims = run.events.filter((e) => e.type === "context_trimmed");
  assert.deepEqual(trims.map((e) => (e.data as { mode: string; dropped_groups: number })), [
    { ...(trims[0].data as object), mode: "manual", dropped_groups: 2 },
  ]);
  // Only the first request: a second one is not compacted again.
  assert.equal(run.main.length, 1);
});
