/**
 * Issue 14, case 6: the token, cost and tool-call budgets count the session's whole spend, across
 * `odek continue`; a request whose prompt alone is over what is left is not sent. Against the fake
 * server in strict mode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ScriptedTurn, startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { type OdekFixture, odekFixture } from "./_odek.ts";

/** The journal's records of a session. */
async function records(fx: OdekFixture, id: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(join(fx.odekHome, "sessions", `${id}.jsonl`));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

/** Prompt tokens the fake server reported for these requests (its own count of each). */
function reported(requests: readonly { promptTokens: number }[]): number {
  return requests.reduce((n, r) => n + r.promptTokens, 0);
}

/** Turns that each ask for one glob with a new pattern (no stall), then a final answer. */
function globs(count: number, prefix: string): ScriptedTurn[] {
  return [
    ...Array.from({ length: count }, (_, i): ScriptedTurn => ({
      toolCalls: [{ id: `${prefix}${i}`, name: "glob", arguments: { pattern: `*.${prefix}${i}` } }],
    })),
    { text: "done" },
  ];
}

Deno.test("odek continue with the same --max-input-tokens sends nothing once the session has spent it (case 6)", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: globs(20, "g"), strict: true });
  const cap = 10_000;
  const first = await fx.run([
    "run",
    "--session",
    "capped",
    "--base-url",
    server.url,
    "--max-input-tokens",
    String(cap),
    "look around",
  ]);
  assert.equal(first.code, 4, first.stderr);
  const sent = server.requests.length;
  assert.ok(sent >= 2, `only ${sent} request(s)`);
  assert.ok(server.requests.every((r) => r.refused === undefined));
  // Never the cap plus a whole request: the request that would cross it was not sent.
  const spent = reported(server.requests);
  assert.ok(spent <= cap * 1.1, `spent ${spent} against a cap of ${cap}`);
  assert.match(
    first.stderr,
    /Input-token budget spent: the next request's prompt \(about \d+ tokens\) is more than the \d+ left of the session's 10000 \(--max-input-tokens/,
  );
  // Each turn's usage is journaled, with the model that spent it.
  const usage = (await records(fx, "capped")).filter((r) => r.t === "usage");
  assert.equal(usage.length, sent);
  assert.equal(usage.reduce((n, r) => n + Number(r.inputTokens), 0), spent);
  assert.ok(usage.every((r) => r.model === "gpt-4.1-mini"));

  // Before issue 14 this made four more requests: 24,000 tokens against a 10,000 cap.
  const again = await fx.run([
    "continue",
    "capped",
    "--base-url",
    server.url,
    "--max-input-tokens",
    String(cap),
  ]);
  assert.equal(again.code, 4, again.stderr);
  assert.equal(server.requests.length, sent, "nothing sent");
  assert.match(
    again.stderr,
    new RegExp(
      `this session has spent ${spent} input and \\d+ output tokens and \\d+ tool call\\(s\\); left of its budgets: \\d+ input tokens`,
    ),
  );

  // With a higher limit it goes on, knowing what was spent.
  const higher = await fx.run([
    "continue",
    "capped",
    "--base-url",
    server.url,
    "--max-input-tokens",
    String(cap * 100),
    "--json",
  ]);
  assert.equal(higher.code, 0, higher.stderr);
  const events = higher.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const started = events.find((e) => e.type === "run_started");
  assert.equal(started.data.session_spend.input_tokens, spent);
  assert.equal(started.data.session_spend.left.input_tokens, cap * 100 - spent);
  assert.ok(server.requests.slice(sent).every((r) => r.refused === undefined));
});

Deno.test("odek run: a first request whose prompt alone is over --max-input-tokens is not sent", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({ turns: [{ text: "never" }], strict: true });
  const result = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--max-input-tokens",
    "100",
    "--json",
    "hi",
  ]);
  assert.equal(result.code, 4, result.stderr);
  assert.equal(server.requests.length, 0);
  const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const breach = events.find((e) => e.type === "budget_exceeded").data;
  assert.equal(breach.limit_name, "input_tokens");
  assert.equal(breach.limit, 100);
  assert.ok(breach.prompt_tokens > 100, JSON.stringify(breach));
  assert.equal(breach.observed, breach.prompt_tokens);
});

Deno.test("odek continue: --max-tool-calls counts the calls of earlier runs of the session", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [
      {
        toolCalls: [
          { id: "a1", name: "glob", arguments: { pattern: "*.a" } },
          { id: "a2", name: "glob", arguments: { pattern: "*.b" } },
        ],
      },
      { text: "two globs" },
      { toolCalls: [{ id: "b1", name: "glob", arguments: { pattern: "*.c" } }] },
      { text: "never asked" },
    ],
    strict: true,
  });
  const flags = ["--base-url", server.url, "--max-tool-calls", "2"];
  const first = await fx.run(["run", "--session", "calls", ...flags, "two calls"]);
  assert.equal(first.code, 0, first.stderr);
  const next = await fx.run(["continue", "calls", "one more", ...flags]);
  assert.equal(next.code, 4, next.stderr);
  assert.match(
    next.stderr,
    /Tool-call budget spent: 3 tool calls asked for over the session, the limit is 2/,
  );
  assert.equal(server.requests.length, 3);
  const results = (await records(fx, "calls")).filter((r) =>
    r.t === "message" && (r.message as { role: string }).role === "tool"
  ).map((r) => r.message as { tool_call_id: string; content: string });
  assert.match(results.find((m) => m.tool_call_id === "b1")!.content, /^error \(budget_exceeded\)/);
});
