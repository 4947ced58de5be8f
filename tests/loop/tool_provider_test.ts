// A tool provider's tools beside the catalogue's: listed to the model, validated once against the
// provider's schema, classified by the provider's rule through the classifier, run by the
// provider (never the broker), and refused without a gate unless their class is contained.
import assert from "node:assert/strict";
import { z } from "zod";
import type { ChatMessage } from "../../src/_util/chat_message.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ToolInvocation } from "../../src/broker/tool_broker.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import type { ToolGate } from "../../src/loop/gate_tool_calls.ts";
import { runAgent } from "../../src/loop/run_agent.ts";
import type { ProvidedCall, ToolProvider } from "../../src/loop/tool_provider.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { ScriptedModel } from "../../src/testing/scripted_model.ts";

const START: ChatMessage[] = [{ role: "system", content: "sys" }, { role: "user", content: "t" }];

/** A provider with a lookup (reads, contained) and a page fetch (network). */
class TestProvider implements ToolProvider {
  readonly name = "the test provider";
  readonly runs: ToolInvocation[] = [];
  readonly classified: ProvidedCall[] = [];
  list() {
    return [
      {
        name: "lookup",
        description: "Look a key up in the test provider's table.",
        args: z.strictObject({ key: z.string().min(1), limit: z.int().default(3) }),
        classWithoutGate: "read" as const,
      },
      {
        name: "fetch_page",
        description: "Fetch a page through the test provider.",
        args: z.strictObject({ url: z.string() }),
      },
    ];
  }
  classify(call: ProvidedCall) {
    this.classified.push(call);
    return call.name === "lookup"
      ? { kind: "fixed" as const, class: "read" as const, detail: "reads the provider's table" }
      : { kind: "url" as const, arg: "url" };
  }
  run(invocation: ToolInvocation) {
    this.runs.push(invocation);
    return Promise.resolve({ ok: true as const, output: `looked up ${invocation.args.key}` });
  }
}

async function run(turns: ScriptedTurn[], provider: TestProvider, gate?: ToolGate) {
  const broker = new FakeBroker(() => ({ ok: true, output: "from the broker" }));
  const journal: ChatMessage[] = [];
  const tools = new ToolSet({ providers: [provider] });
  const model = new ScriptedModel(turns);
  const outcome = await runAgent({
    model,
    broker,
    journal: { append: (m) => Promise.resolve(void journal.push(structuredClone(m))) },
    messages: START,
    tools,
    runId: "0".repeat(32),
    ...(gate ? { gate } : {}),
  });
  const results: Record<string, string> = Object.fromEntries(
    journal.flatMap((m) => m.role === "tool" ? [[m.tool_call_id, String(m.content)]] : []),
  );
  return { outcome, broker, results, tools, model };
}

Deno.test("a provided tool is listed, validated once, classified by its rule and run by its provider", async () => {
  const provider = new TestProvider();
  const classifier = await createClassifier();
  const context = {
    workspace: "/srv/ws",
    home: "/home/ada",
    protectedRoots: ["/home/ada/.odek"],
    trustLevel: "standard" as const,
  };
  const asked: string[] = [];
  const gate: ToolGate = {
    classify: (call) => classifier.classifyToolCall(call, context),
    approver: {
      decide: (request) => {
        asked.push(...request.calls.map((c) => `${c.toolName}:${c.verdict.parts[0].riskClass}`));
        return Promise.resolve(
          request.calls.map((c) => ({ callId: c.callId, approved: false, scope: "once" as const })),
        );
      },
    },
  };
  const h = await run(
    [
      {
        toolCalls: [
          { id: "a", name: "lookup", arguments: { key: "k1" } },
          { id: "b", name: "lookup", arguments: { key: 5 } },
          { id: "c", name: "glob", arguments: { pattern: "*.md" } },
          { id: "d", name: "fetch_page", arguments: { url: "https://docs.e.example/x" } },
        ],
      },
      { text: "done" },
    ],
    provider,
    gate,
  );
  assert.equal(h.outcome.type, "completed");
  const names = h.tools.specs.map((s) => s.function.name);
  assert.deepEqual(names.slice(-2), ["lookup", "fetch_page"], "after the built-in tools");
  assert.deepEqual(h.model.requests[0].tools.map((t) => t.function.name), names);
  // One valid lookup ran, in the provider, with the schema's output (its default applied).
  assert.deepEqual(provider.runs.map((r) => [r.id, r.args]), [["a", { key: "k1", limit: 3 }]]);
  assert.equal(provider.runs[0].verdict?.parts[0].riskClass, "read");
  assert.equal(provider.runs[0].entry, undefined, "a provided tool has no catalogue entry");
  assert.match(h.results.b, /Invalid arguments for lookup: key: /);
  // The built-in call went to the broker, which got its catalogue entry with it.
  assert.deepEqual(h.broker.calls.map((c) => [c.invocation.id, c.invocation.entry?.name]), [
    ["c", "glob"],
  ]);
  // The page fetch was classified by the provider's url rule: network, asked, refused.
  assert.deepEqual(asked, ["fetch_page:network"]);
  assert.match(h.results.d, /did not approve/);
  assert.deepEqual(provider.classified.map((c) => c.name), ["lookup", "fetch_page"]);
});

Deno.test("without a gate a provided tool runs only when its class without a gate is contained", async () => {
  const provider = new TestProvider();
  const h = await run([
    {
      toolCalls: [
        { id: "a", name: "lookup", arguments: { key: "k1" } },
        { id: "b", name: "fetch_page", arguments: { url: "https://docs.e.example/x" } },
      ],
    },
    { text: "done" },
  ], provider);
  assert.deepEqual(provider.runs.map((r) => r.id), ["a"]);
  assert.match(h.results.b, /Not run: fetch_page needs unknown approval/);
  assert.equal(h.broker.calls.length, 0);
});

Deno.test("a provider cannot take a built-in tool's name, nor an invalid one", () => {
  const clash: ToolProvider = {
    name: "a clashing provider",
    list: () => [{ name: "read_file", description: "x", args: z.strictObject({}) }],
    classify: () => ({ kind: "fixed", class: "read", detail: "x" }),
    run: () => Promise.resolve({ ok: true, output: "" }),
  };
  assert.throws(
    () => new ToolSet({ providers: [clash] }),
    (error: unknown) =>
      error instanceof OdekError && error.code === "CONFIG_INVALID" &&
      /a clashing provider offers a tool "read_file", which is already a tool of odek/.test(
        error.message,
      ),
  );
  const bad = {
    ...clash,
    list: () => [{ name: "has space", description: "x", args: z.strictObject({}) }],
  };
  assert.throws(() => new ToolSet({ providers: [bad] }), /not a valid tool name/);
});
