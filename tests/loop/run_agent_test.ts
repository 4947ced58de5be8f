import assert from "node:assert/strict";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { createRedactor } from "../../src/_util/create_redactor.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { runAgent, type RunAgentOptions } from "../../src/loop/run_agent.ts";
import type { RunEvent } from "../../src/loop/run_event.ts";
import { FakeBroker, type FakeToolHandler } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";
import { untrustedBody } from "../../src/testing/untrusted_body.ts";

const START: ChatMessage[] = [{ role: "system", content: "sys" }, {
  role: "user",
  content: "task",
}];

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
  return { model, broker, journal, events, run: () => runAgent(options) };
}

const ok = (output: string): ToolResult => ({ ok: true, output });
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("runAgent() completes when the model answers without tool calls", async () => {
  const h = harness([{ text: "all done" }], () => ok("unused"));
  const outcome = await h.run();
  assert.equal(outcome.type, "completed");
  assert.equal(outcome.type === "completed" && outcome.text, "all done");
  assert.deepEqual(h.journal, [{ role: "assistant", content: "all done" }]);
  assert.equal(h.broker.calls.length, 0);
  const text = h.events.filter((e) => e.type === "text_delta").map((e) =>
    (e.data as { text: string }).text
  ).join("");
  assert.equal(text, "all done");
});

Deno.test("runAgent() runs parallel calls and appends results in call order with matching ids", async () => {
  const turns: ScriptedTurn[] = [
    {
      toolCalls: [
        { id: "r1", name: "read_file", arguments: { path: "a.txt" } },
        { id: "r2", name: "read_file", arguments: { path: "b.txt" } },
        { id: "r3", name: "read_file", arguments: { path: "c.txt" } },
        { id: "s1", name: "shell", arguments: { command: "echo hi" } },
      ],
    },
    { text: "read them" },
  ];
  // Later calls finish first, so completion order is the reverse of call order.
  const h = harness(turns, async (inv) => {
    await delay(inv.id === "r1" ? 60 : inv.id === "r2" ? 40 : inv.id === "r3" ? 20 : 5);
    return ok(`out:${inv.id}`);
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "completed");
  const second = h.model.requests[1].messages;
  const toolMessages = second.filter((m) => m.role === "tool");
  assert.deepEqual(toolMessages.map((m) => m.role === "tool" && m.tool_call_id), [
    "r1",
    "r2",
    "r3",
    "s1",
  ]);
  assert.deepEqual(toolMessages.map((m) => untrustedBody(m.content as string)), [
    "out:r1",
    "out:r2",
    "out:r3",
    "out:s1",
  ]);
  assert.equal(h.broker.maxConcurrent, 4);
  // The journal has the assistant message before any result, and results as they completed.
  assert.equal(h.journal[0].role, "assistant");
  assert.deepEqual(h.journal.slice(1, 5).map((m) => m.role === "tool" && m.tool_call_id), [
    "s1",
    "r3",
    "r2",
    "r1",
  ]);
});

Deno.test("runAgent() never runs more than maxToolParallel calls at once", async () => {
  const calls = Array.from(
    { length: 6 },
    (_, i) => ({ id: `c${i}`, name: "glob", arguments: { pattern: "*" } }),
  );
  const h = harness([{ toolCalls: calls }, { text: "ok" }], async () => {
    await delay(10);
    return ok("x");
  }, { maxToolParallel: 2 });
  await h.run();
  assert.equal(h.broker.calls.length, 6);
  assert.equal(h.broker.maxConcurrent, 2);
});

Deno.test("runAgent() turns invalid JSON, unknown tools and bad arguments into results without running them", async () => {
  const h = harness([
    {
      toolCalls: [
        { id: "bad-json", name: "shell", arguments: '{"command": "ls"' },
        { id: "unknown", name: "rm_everything", arguments: {} },
        { id: "bad-args", name: "read_file", arguments: { path: "a", limit: 99999 } },
        { id: "fine", name: "glob", arguments: { pattern: "*.ts" } },
      ],
    },
    { text: "noted" },
  ], () => ok("ran"));
  await h.run();
  assert.deepEqual(h.broker.calls.map((c) => c.invocation.id), ["fine"]);
  const results = Object.fromEntries(
    h.model.requests[1].messages.filter((m) => m.role === "tool").map((
      m,
    ) => [m.role === "tool" && m.tool_call_id, untrustedBody(m.content as string)]),
  );
  assert.match(results["bad-json"], /^error \(invalid_arguments\): .*not valid JSON/);
  assert.match(
    results["unknown"],
    /^error \(unknown_tool\): There is no tool named "rm_everything"/,
  );
  assert.match(
    results["bad-args"],
    /^error \(invalid_arguments\): Invalid arguments for read_file: limit/,
  );
  assert.equal(results["fine"], "ran");
  const failed = h.events.filter((e) => e.type === "tool_call_failed").map((e) => e.tool);
  assert.deepEqual(failed.sort(), ["read_file", "rm_everything", "shell"]);
});

Deno.test("runAgent() gives calls without an id the deterministic id it<iteration>-call<index>", async () => {
  const h = harness([
    { text: "first", toolCalls: [{ id: "given", name: "glob", arguments: { pattern: "*" } }] },
    {
      toolCalls: [{ id: null, name: "glob", arguments: { pattern: "a" } }, {
        id: null,
        name: "glob",
        arguments: { pattern: "b" },
      }],
    },
    { text: "done" },
  ], () => ok("x"));
  await h.run();
  assert.deepEqual(h.broker.calls.map((c) => c.invocation.id), ["given", "it2-call0", "it2-call1"]);
});

Deno.test("runAgent() stops at the iteration budget", async () => {
  const loop = (pattern: string): ScriptedTurn => ({
    toolCalls: [{ name: "glob", arguments: { pattern } }],
  });
  const h = harness([loop("a"), loop("b"), loop("c"), loop("d")], () => ok("x"), {
    maxIterations: 3,
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "budget_exceeded");
  assert.equal(outcome.stats.iterations, 3);
  // Three turns, then the tool-less request for a partial summary (answered here with a tool
  // call, which is not accepted as a summary: nothing is journaled for it).
  assert.equal(h.model.requests.length, 4);
  assert.deepEqual(h.model.requests[3].tools, []);
  assert.equal(outcome.type === "budget_exceeded" && outcome.partialSummary, null);
  assert.equal(h.journal.at(-1)?.role, "tool");
  assert.equal(outcome.stats.toolCalls, 3);
});

Deno.test("runAgent() returns interrupted and journals interrupted results when aborted mid-batch", async () => {
  const controller = new AbortController();
  const h = harness([{
    toolCalls: [{ id: "slow", name: "shell", arguments: { command: "sleep 100" } }],
  }, { text: "never" }], (_inv, signal) =>
    new Promise<ToolResult>((resolve) => {
      signal?.addEventListener("abort", () =>
        resolve({ ok: false, error: { kind: "interrupted", message: "killed" } }));
      setTimeout(() =>
        controller.abort(), 10);
    }), { signal: controller.signal });
  const outcome = await h.run();
  assert.equal(outcome.type, "interrupted");
  assert.equal(h.model.requests.length, 1);
  const last = h.journal.at(-1)!;
  assert.equal(last.role, "tool");
  assert.match(untrustedBody(last.content), /^error \(interrupted\): killed/);
});

Deno.test("runAgent() fails with the model's error and keeps what was journaled", async () => {
  const h = harness([
    { toolCalls: [{ id: "c1", name: "glob", arguments: { pattern: "*" } }] },
    { fault: { type: "status", status: 401, body: '{"error":{"message":"bad key"}}' } },
  ], () => ok("listing"));
  const outcome = await h.run();
  assert.equal(outcome.type, "failed");
  assert.ok(outcome.type === "failed" && outcome.error instanceof OdekError);
  assert.equal(outcome.type === "failed" && (outcome.error as OdekError).code, "MODEL_ERROR");
  assert.deepEqual(h.journal.map((m) => m.role), ["assistant", "tool"]);
});

Deno.test("runAgent() isolates a throwing event sink", async () => {
  const h = harness([{ text: "fine" }], () => ok("x"), {
    onEvent: () => {
      throw new Error("sink broke");
    },
  });
  const outcome = await h.run();
  assert.equal(outcome.type, "completed");
});

Deno.test("runAgent() redacts secrets in streamed text even when they straddle deltas", async () => {
  const { redactKnownValues } = await import("../../src/_util/redact_known_values.ts");
  const secret = "sk-canary-0123456789abcdefghij";
  const h = harness(
    [{
      text: `Your key is ${secret} and its base64 is ${btoa(secret)}.`,
      reasoning: `I saw ${secret}`,
    }],
    () => ok("x"),
    {
      redact: redactKnownValues([secret]),
    },
  );
  const outcome = await h.run();
  assert.equal(outcome.type, "completed");
  const joined = (type: string) =>
    h.events.filter((e) => e.type === type).map((e) => (e.data as { text: string }).text).join("");
  assert.ok(
    h.events.filter((e) => e.type === "text_delta").length > 1,
    "the text was streamed in pieces",
  );
  assert.equal(joined("text_delta"), "Your key is [REDACTED] and its base64 is [REDACTED].");
  assert.equal(joined("reasoning_delta"), "I saw [REDACTED]");
  const message = h.events.find((e) => e.type === "assistant_message")!;
  assert.equal(
    (message.data as { content: string }).content,
    "Your key is [REDACTED] and its base64 is [REDACTED].",
  );
  for (const event of h.events) {
    assert.ok(!JSON.stringify(event).includes(secret.slice(0, 12)), event.type);
  }
});

Deno.test("runAgent() lets the broker warm up while each model request is in flight", async () => {
  const h = harness([
    { toolCalls: [{ id: "a", name: "shell", arguments: { command: "true" } }], delayMs: 30 },
    { text: "done", delayMs: 30 },
  ], () => ok("x"));
  await h.run();
  assert.equal(h.broker.prepareCalls, 2, "one hint per model request");
});

Deno.test("runAgent() gates a batch: deny is refused, allow runs, every ask goes to the approver in one request", async () => {
  const verdicts: Record<string, "allow" | "ask" | "deny"> = {
    ls: "allow",
    "rm -rf ~": "deny",
    "curl x": "ask",
    "wget y": "ask",
  };
  const requests: string[][] = [];
  const gate = {
    classify: ({ args }: { args: Record<string, unknown> }) => {
      const decision = verdicts[String(args.command)];
      const riskClass = decision === "allow"
        ? "read" as const
        : decision === "deny"
        ? "destructive" as const
        : "network" as const;
      return {
        parts: [{ riskClass, subject: String(args.command), targets: [] }],
        decision,
        reason: `${args.command}: ${riskClass}`,
      };
    },
    approver: {
      decide(request: { calls: { callId: string }[] }) {
        requests.push(request.calls.map((c) => c.callId));
        return Promise.resolve(request.calls.map((c) => ({
          callId: c.callId,
          approved: c.callId === "curl",
          scope: "once" as const,
          ...(c.callId === "wget" ? { reason: "not today" } : {}),
        })));
      },
    },
  };
  const h = harness(
    [
      {
        toolCalls: Object.keys(verdicts).map((command) => ({
          id: command.split(" ")[0] === "rm" ? "rm" : command.split(" ")[0],
          name: "shell",
          arguments: { command },
        })),
      },
      { text: "done" },
    ],
    (inv) => ok(`ran ${inv.id} as ${inv.verdict?.parts[0].riskClass}`),
    { gate },
  );
  await h.run();
  assert.deepEqual(requests, [["curl", "wget"]], "one request with every asking call");
  assert.deepEqual(h.broker.calls.map((c) => c.invocation.id).sort(), ["curl", "ls"]);
  const results = Object.fromEntries(
    h.model.requests[1].messages.filter((m) => m.role === "tool").map((
      m,
    ) => [m.role === "tool" && m.tool_call_id, untrustedBody(m.content as string)]),
  );
  assert.equal(results.ls, "ran ls as read");
  assert.equal(results.curl, "ran curl as network");
  assert.match(results.rm, /^error \(denied\): Not run: rm -rf ~: destructive/);
  assert.match(
    results.wget,
    /^error \(denied\): not today\. It asked because wget y: network/,
  );
  const answered = h.events.filter((e) => e.type === "approval_answered").map((
    e,
  ) => (e.data as { call_id: string; approved: boolean }));
  assert.deepEqual(answered.map((a) => [a.call_id, a.approved]), [["curl", true], ["wget", false]]);
});

Deno.test("runAgent() shows the approver the gate's preview of an asking call, such as a write's diff", async () => {
  const seen: (string | undefined)[] = [];
  const gate = {
    classify: () => ({
      parts: [{
        riskClass: "system_write" as const,
        subject: "write_file",
        targets: ["/home/a/.bashrc"],
      }],
      decision: "ask" as const,
      reason: "writes ~/.bashrc",
    }),
    preview: (call: { name: string; args: Record<string, unknown> }) =>
      Promise.resolve(`--- ${call.args.path}\n+${call.args.content}`),
    approver: {
      decide(request: { calls: { callId: string; preview?: string }[] }) {
        seen.push(...request.calls.map((c) => c.preview));
        return Promise.resolve(
          request.calls.map((c) => ({ callId: c.callId, approved: false, scope: "once" as const })),
        );
      },
    },
  };
  const h = harness(
    [
      {
        toolCalls: [{
          id: "w",
          name: "write_file",
          arguments: { path: "/home/a/.bashrc", content: "alias x=y" },
        }],
      },
      { text: "fine" },
    ],
    () => ok("never"),
    { gate },
  );
  await h.run();
  assert.deepEqual(seen, ["--- /home/a/.bashrc\n+alias x=y"]);
  assert.equal(h.broker.calls.length, 0);
});

Deno.test("runAgent() caps, neutralises and redacts tool results before the model, the journal and the events see them", async () => {
  const huge = `API_TOKEN=tok-abc-123456\n\u001b[2J${"z".repeat(200_000)}\n\u{E0041}end\n`;
  const h = harness(
    [
      { toolCalls: [{ id: "big", name: "read_file", arguments: { path: "a.txt" } }] },
      { text: "The token was tok-abc-123456." },
    ],
    () => ok(huge),
    { redact: createRedactor([]) },
  );
  await h.run();
  const sent = h.model.requests[1].messages.find((m) => m.role === "tool")!.content as string;
  const journaled = h.journal.find((m) => m.role === "tool")!.content;
  assert.equal(journaled, sent, "the journal keeps what the model was sent");
  assert.ok(new TextEncoder().encode(sent).length < 16_384 + 1024, `${sent.length} chars`);
  assert.match(untrustedBody(sent), /^API_TOKEN=\[REDACTED\]\n/);
  assert.match(sent, /\[odek: \d+ bytes \(\d+ lines\) omitted/);
  assert.ok(
    !sent.includes("\u001b") && !sent.includes("\u{E0041}"),
    "raw escapes reached the model",
  );
  const flagged = h.events.find((e) => e.type === "content_flagged");
  assert.deepEqual(flagged?.data, { call_id: "big", kinds: ["ansi_csi", "unicode_tag"] });
  // Every event is redacted, including the model's own repetition of a value it read.
  const all = JSON.stringify(h.events);
  assert.ok(!all.includes("tok-abc-123456"), "an event holds the secret");
  const text = h.events.filter((e) => e.type === "text_delta").map((e) =>
    (e.data as { text: string }).text
  ).join("");
  assert.equal(text, "The token was [REDACTED].");
});

Deno.test("runAgent() honours toolOutput limits", async () => {
  const h = harness(
    [
      { toolCalls: [{ id: "c", name: "read_file", arguments: { path: "a.txt" } }] },
      { text: "ok" },
    ],
    () => ok("a".repeat(5000)),
    {
      toolOutput: { maxBytes: 2048, headBytes: 1000, tailBytes: 500 },
    },
  );
  await h.run();
  const body = untrustedBody(h.journal.find((m) => m.role === "tool")!.content as string);
  assert.match(body, /^a{1000}\n\[odek: 3500 bytes \(0 lines\) omitted[^\]]*\]\na{500}$/);
});
