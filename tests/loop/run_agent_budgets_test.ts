import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { PARTIAL_SUMMARY_MARKER } from "../../src/loop/partial_summary.ts";
import { runAgent, type RunAgentOptions } from "../../src/loop/run_agent.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { FakeBroker, type FakeToolHandler } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

const START: ChatMessage[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "task" },
];

function harness(
  turns: ScriptedTurn[],
  handler: FakeToolHandler,
  extra: Partial<RunAgentOptions> = {},
) {
  const model = new ScriptedModel(turns);
  const broker = new FakeBroker(handler);
  const journal: ChatMessage[] = [];
  const events: RunEvent[] = [];
  const options: RunAgentOptions = {
    model,
    broker,
    journal: { append: (m) => Promise.resolve(void journal.push(structuredClone(m))) },
    messages: START,
    tools: new ToolSet(),
    runId: "0".repeat(32),
    onEvent: (e) => events.push(e),
    ...extra,
  };
  const of = <T extends RunEvent["type"]>(type: T) =>
    events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
  return { model, broker, journal, events, of, run: () => runAgent(options) };
}

const ok = (output: string): ToolResult => ({ ok: true, output });
const glob = (pattern: string, id?: string): ScriptedTurn => ({
  toolCalls: [{ ...(id ? { id } : {}), name: "glob", arguments: { pattern } }],
});
/** A tool that runs until the run's signal aborts it. */
const untilAborted: FakeToolHandler = (_inv, signal) =>
  new Promise((resolve) =>
    signal?.addEventListener(
      "abort",
      () => resolve({ ok: false, error: { kind: "interrupted", message: "killed" } }),
    )
  );

Deno.test("runAgent() answers 3 identical calls with a hint from odek and goes on", async () => {
  const same = { name: "glob", arguments: { pattern: "*.ts" } };
  const h = harness([
    { toolCalls: [same] },
    { toolCalls: [{ name: "glob", arguments: '{ "pattern": "*.ts" }' }] },
    { toolCalls: [same] },
    { text: "changed course" },
  ], () => ok("nothing"));
  const outcome = await h.run();
  assert.equal(outcome.type, "completed");
  assert.deepEqual(h.of("stall_detected").map((e) => e.data), [
    { name: "glob", repeats: 3, cycle_length: 1, action: "hint" },
  ]);
  const hints = h.journal.filter((m) => m.role === "user");
  assert.equal(hints.length, 1);
  assert.match(hints[0].content, /^\[odek\] You have called glob with the same arguments 3 times/);
  // The hint is journaled right after the third result and sent with the next request.
  assert.deepEqual(h.journal.slice(-3).map((m) => m.role), ["tool", "user", "assistant"]);
  assert.deepEqual(h.model.requests[3].messages.at(-1), hints[0]);
});

Deno.test("runAgent() emits iteration_completed on every iteration", async () => {
  const h = harness([glob("a"), glob("b"), { text: "done" }], () => ok("x"));
  await h.run();
  assert.deepEqual(h.of("iteration_completed").map((e) => [e.iteration, e.data.tools_called]), [
    [1, 1],
    [2, 1],
    [3, 0],
  ]);
});

Deno.test("runAgent() spends the iteration budget with one tool-less call for a partial summary", async () => {
  const h = harness(
    [
      glob("a"),
      glob("b"),
      { text: "Did a and b; c is left.", usage: { prompt_tokens: 40, completion_tokens: 7 } },
    ],
    () => ok("x"),
    { maxIterations: 2 },
  );
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  if (outcome.type !== "budget_exceeded") return;
  assert.deepEqual(outcome.breach, { limit_name: "iterations", observed: 2, limit: 2 });
  assert.equal(outcome.partialSummary, "Did a and b; c is left.");
  assert.equal(h.model.requests.length, 3);
  assert.deepEqual(h.model.requests[2].tools, [], "the summary request offers no tools");
  assert.match(
    String(h.model.requests[2].messages.at(-1)?.content),
    /^\[odek\] The iteration budget \(2 model turns\) is spent/,
  );
  // Persisted like any turn: the request and the marked answer.
  assert.deepEqual(h.journal.slice(-2), [
    h.model.requests[2].messages.at(-1),
    { role: "assistant", content: `${PARTIAL_SUMMARY_MARKER}\n\nDid a and b; c is left.` },
  ]);
  assert.equal(outcome.stats.iterations, 2, "the summary call is outside the budget");
  assert.ok(outcome.stats.outputTokens >= 7, "its usage still counts");
  const order = h.events.map((e) => e.type).filter((t) =>
    t === "budget_exceeded" || t === "partial_summary"
  );
  assert.deepEqual(order, ["budget_exceeded", "partial_summary"]);
});

Deno.test("runAgent() still stops with exit-4 data when the partial summary fails", async () => {
  const h = harness([glob("a"), { fault: { type: "status", status: 500 } }], () => ok("x"), {
    maxIterations: 1,
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  assert.equal(outcome.type === "budget_exceeded" && outcome.partialSummary, null);
  assert.equal(h.journal.at(-1)?.role, "tool", "nothing is journaled for a failed summary");
});

Deno.test("runAgent() stops at the runtime budget, checked between steps with the injected clock", async () => {
  let clock = 0;
  const h = harness([glob("a"), glob("b"), { text: "never" }], () => {
    clock += 5_000; // each tool call takes 5 s of the fake clock
    return ok("x");
  }, { budgets: { maxRuntimeMs: 8_000 }, now: () => clock });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  if (outcome.type !== "budget_exceeded") return;
  assert.deepEqual(outcome.breach, { limit_name: "runtime", observed: 10, limit: 8 });
  assert.equal(h.model.requests.length, 2, "no model call after the budget was spent");
  assert.equal(outcome.partialSummary, null, "hard budgets make no extra model call");
  assert.deepEqual(h.of("budget_exceeded").map((e) => e.data), [outcome.breach]);
});

Deno.test("runAgent() aborts a long tool call when the runtime budget is spent", async () => {
  const h = harness([glob("a", "long"), { text: "never" }], untilAborted, {
    budgets: { maxRuntimeMs: 50 },
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  assert.equal(outcome.type === "budget_exceeded" && outcome.breach.limit_name, "runtime");
  assert.equal(h.model.requests.length, 1);
  const last = h.journal.at(-1)!;
  assert.equal(last.role === "tool" && last.tool_call_id, "long");
  assert.match(String(last.content), /^error \(interrupted\):\n[^]*\nkilled\n/);
});

// The failing inputs: maxToolParallel 0 journaled an assistant turn and then failed with a
// TypeError; a maxRuntimeMs above 2³¹−1 overflowed the timer and ended the run at once with a
// breach that never happened.
Deno.test("runAgent() rejects limits it could not honour before anything runs or is journaled", async (t) => {
  const cases: [string, Partial<Parameters<typeof harness>[2]>, RegExp][] = [
    ["maxToolParallel: 0", { maxToolParallel: 0 }, /^maxToolParallel must be an integer/],
    [
      "maxRuntimeMs: 2³¹",
      { budgets: { maxRuntimeMs: 2 ** 31 } },
      /^budgets\.maxRuntimeMs must be an integer from 0 to 2147483647/,
    ],
    ["maxIterations: 1.5", { maxIterations: 1.5 }, /^maxIterations must be an integer/],
    ["maxToolCalls: -1", { budgets: { maxToolCalls: -1 } }, /^budgets\.maxToolCalls/],
    ["maxCostUsd: NaN", { budgets: { maxCostUsd: Number.NaN } }, /^budgets\.maxCostUsd/],
  ];
  for (const [name, extra, message] of cases) {
    await t.step(name, async () => {
      const h = harness([glob("a"), { text: "never" }], () => ok("x"), extra);
      await assert.rejects(h.run(), (e) => e instanceof RangeError && message.test(e.message));
      assert.deepEqual(h.journal, []);
      assert.equal(h.model.requests.length, 0);
    });
  }
  const h = harness([{ text: "never" }], () => ok("x"), { maxToolParallel: "4" as never });
  await assert.rejects(h.run(), (e) => e instanceof TypeError && /maxToolParallel/.test(e.message));
});

// The failing input: the timer fired while the clock still read just under the limit, and the
// breach said "2.99994 s of 2.99994 s" instead of the 3 s budget.
Deno.test("runAgent(): a runtime budget whose timer fires before the clock reaches it reports the budget as the limit", async () => {
  let clock = 0;
  const h = harness([{ fault: { type: "hang" } }], () => ok("x"), {
    budgets: { maxRuntimeMs: 40 },
    // Every reading moves 1 ms, so the time left is taken a little after the start, and the
    // clock never reaches the limit while the real timer runs.
    now: () => clock++,
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  if (outcome.type !== "budget_exceeded") return;
  assert.equal(outcome.breach.limit_name, "runtime");
  assert.equal(outcome.breach.limit, 0.04);
  assert.ok(outcome.breach.observed >= 0.04, JSON.stringify(outcome.breach));
});

// The failing input (CI): the timer fired with the clock just under the limit, and the limit
// added to the start and taken off again came out under the limit in floating point, so the run
// ended "interrupted" instead of over its budget. A clock that stands still at such a start.
Deno.test("runAgent(): a runtime budget spent while the clock reads a start where start + limit - start < limit is still budget_exceeded", async () => {
  const start = 4064.6602173500237;
  assert.ok(start + 50 - start < 50, "the start's floating-point rounding");
  const h = harness([{ fault: { type: "hang" } }], () => ok("x"), {
    budgets: { maxRuntimeMs: 50 },
    now: () => start,
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  if (outcome.type !== "budget_exceeded") return;
  assert.deepEqual(outcome.breach, { limit_name: "runtime", observed: 0.05, limit: 0.05 });
});

Deno.test("runAgent() aborts a hanging model request when the runtime budget is spent", async () => {
  const h = harness([{ fault: { type: "hang" } }], () => ok("x"), {
    budgets: { maxRuntimeMs: 50 },
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  assert.equal(outcome.type === "budget_exceeded" && outcome.breach.limit_name, "runtime");
  assert.deepEqual(h.journal, []);
});

Deno.test("runAgent() reports a signal as interrupted even when a runtime budget is set", async () => {
  const controller = new AbortController();
  const h = harness([glob("a"), { text: "never" }], (inv, signal) => {
    setTimeout(() => controller.abort(), 5);
    return untilAborted(inv, signal);
  }, { budgets: { maxRuntimeMs: 60_000 }, signal: controller.signal });
  const outcome = await h.run();
  assert.equal(outcome.type, "interrupted");
  assert.deepEqual(h.of("budget_exceeded"), []);
});

Deno.test("runAgent() runs the calls under the tool-call cap and refuses the rest", async () => {
  const h = harness(
    [{
      toolCalls: [
        { id: "c1", name: "glob", arguments: { pattern: "1" } },
        { id: "c2", name: "glob", arguments: { pattern: "2" } },
        { id: "c3", name: "glob", arguments: { pattern: "3" } },
      ],
    }, { text: "never" }],
    () => ok("x"),
    { budgets: { maxToolCalls: 2 } },
  );
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  if (outcome.type !== "budget_exceeded") return;
  assert.deepEqual(outcome.breach, { limit_name: "tool_calls", observed: 3, limit: 2 });
  assert.deepEqual(h.broker.calls.map((c) => c.invocation.id), ["c1", "c2"]);
  // Every call is answered (the journal holds results in the order they completed).
  const results = h.journal.filter((m) => m.role === "tool");
  assert.deepEqual(results.map((m) => m.tool_call_id).sort(), ["c1", "c2", "c3"]);
  assert.match(
    results.find((m) => m.tool_call_id === "c3")!.content,
    /^error \(budget_exceeded\): Not run: the run's tool_calls budget is spent \(3 of 2\)/,
  );
  assert.equal(h.model.requests.length, 1);
});

Deno.test("runAgent() stops at a token or cost budget before running the calls of that turn", async (t) => {
  // The prompt (about 2,000 tokens with the tool schemas) fits the input budget; the reported
  // usage of the turn crosses it.
  const usage = { prompt_tokens: 5000, completion_tokens: 40 };
  const cases: [string, RunAgentOptions["budgets"], string, number][] = [
    ["input tokens", { maxInputTokens: 4000 }, "input_tokens", 5000],
    ["output tokens", { maxOutputTokens: 40 }, "output_tokens", 40],
    [
      "cost",
      {
        maxCostUsd: 0.01,
        inputCostPerMillionUsd: 2,
        outputCostPerMillionUsd: 10,
      },
      "cost_usd",
      0.0104,
    ],
  ];
  for (const [name, budgets, limitName, observed] of cases) {
    await t.step(name, async () => {
      const h = harness([{ ...glob("a", "c1"), usage }, { text: "never" }], () => ok("x"), {
        budgets,
      });
      const outcome = await h.run();
      assert.equal(outcome.type, "budget_exceeded");
      if (outcome.type !== "budget_exceeded") return;
      assert.equal(outcome.breach.limit_name, limitName);
      assert.equal(outcome.breach.observed, observed);
      assert.equal(h.broker.calls.length, 0, "the calls of the turn that spent it did not run");
      assert.match(h.journal.at(-1)!.content!, /^error \(budget_exceeded\)/);
    });
  }
  await t.step("a final answer that crosses a budget still completes", async () => {
    const h = harness([{ text: "done", usage }], () => ok("x"), {
      budgets: { maxInputTokens: 4000 },
    });
    assert.equal((await h.run()).type, "completed");
  });
});

Deno.test("runAgent() emits a tool_running heartbeat while a tool call runs, and none after", async () => {
  let release!: () => void;
  const h = harness(
    [glob("a", "slow"), { text: "done" }],
    () =>
      new Promise<ToolResult>((resolve) => {
        release = () => resolve(ok("x"));
      }),
    { toolHeartbeatMs: 5 },
  );
  const running = h.run();
  while (h.of("tool_running").length < 2) await new Promise((r) => setTimeout(r, 5));
  release();
  assert.equal((await running).type, "completed");
  const beats = h.of("tool_running");
  const count = beats.length;
  assert.ok(beats.every((e) => e.data.call_id === "slow" && e.data.name === "glob"));
  assert.ok(beats[1].data.elapsed_ms >= beats[0].data.elapsed_ms);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(h.of("tool_running").length, count, "the heartbeat stopped with the call");
});
