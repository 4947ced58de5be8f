import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { survivorsOf, uniqueSleep } from "../broker/_processes.ts";
import { type OdekFixture, odekFixture } from "./_odek.ts";

/** The messages journaled for a session, in journal order. */
async function journal(fx: OdekFixture, id: string) {
  const text = await Deno.readTextFile(join(fx.odekHome, "sessions", `${id}.jsonl`));
  return text.trim().split("\n").map((l) => JSON.parse(l)).filter((r) => r.t === "message")
    .map((r) => r.message as { role: string; content: string | null; tool_call_id?: string });
}

const glob = (id: string, pattern: string) => ({ id, name: "glob", arguments: { pattern } });

Deno.test("odek run: each hard budget trips with exit 4, a line naming it, a budget_exceeded event and a saved session", async (t) => {
  // The prompt odek sends (system prompt and tool schemas, about 5,000 tokens) fits every cap;
  // the usage the provider reports for the turn crosses the one under test.
  const usage = { prompt_tokens: 60_000, completion_tokens: 50 };
  const cases: {
    name: string;
    args: string[];
    env?: Record<string, string>;
    config?: unknown;
    stderr: RegExp;
    data: unknown;
    ran: number;
  }[] = [
    {
      name: "tool calls (--max-tool-calls)",
      args: ["--max-tool-calls", "1"],
      stderr:
        /Tool-call budget spent: 2 tool calls asked for over the session, the limit is 1 \(--max-tool-calls/,
      data: { limit_name: "tool_calls", observed: 2, limit: 1 },
      ran: 1,
    },
    {
      name: "input tokens (--max-input-tokens)",
      args: ["--max-input-tokens", "50000"],
      stderr:
        /Input-token budget spent: 60000 of 50000 tokens over the session \(--max-input-tokens/,
      data: { limit_name: "input_tokens", observed: 60000, limit: 50000 },
      ran: 0,
    },
    {
      name: "output tokens (ODEK_MAX_OUTPUT_TOKENS)",
      args: [],
      env: { ODEK_MAX_OUTPUT_TOKENS: "50" },
      stderr: /Output-token budget spent: 50 of 50 tokens/,
      data: { limit_name: "output_tokens", observed: 50, limit: 50 },
      ran: 0,
    },
    {
      name: "cost (--max-cost-usd with the model's prices from the config)",
      args: ["--max-cost-usd", "0.06", "--model", "priced-model"],
      config: {
        models: { "priced-model": { inputCostPerMillionUsd: 1, outputCostPerMillionUsd: 10 } },
      },
      // 60,000 × $1/M + 50 × $10/M = $0.0605
      stderr:
        /Cost budget spent: an estimated \$0\.0605 of \$0\.06 over the session \(--max-cost-usd/,
      data: { limit_name: "cost_usd", observed: 0.0605, limit: 0.06 },
      ran: 0,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using fx = await odekFixture();
      if (c.config) {
        await Deno.writeTextFile(join(fx.odekHome, "config.jsonc"), JSON.stringify(c.config));
      }
      await using server = await startFakeOpenAIServer({
        turns: [
          { toolCalls: [glob("g1", "*.a"), glob("g2", "*.b")], usage },
          { text: "resumed and finished" },
        ],
      });
      const run = await fx.run(
        ["run", "--base-url", server.url, "--session", "capped", "--json", ...c.args, "go"],
        { env: c.env },
      );
      assert.equal(run.code, 4, run.stderr);
      assert.match(run.stderr, c.stderr);
      assert.match(run.stderr, /The session is saved: continue it with odek continue capped/);
      const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
      const types = events.map((e) => e.type);
      assert.deepEqual(events.find((e) => e.type === "budget_exceeded").data, c.data);
      assert.ok(types.indexOf("budget_exceeded") < types.indexOf("run_failed"));
      assert.equal(events.at(-1).data.error_class, "BUDGET_EXCEEDED");
      assert.equal(server.requests.length, 1, "no model call after the budget was spent");
      // Saved: every call has a result; the ones the budget stopped say so.
      const results = (await journal(fx, "capped")).filter((m) => m.role === "tool");
      assert.deepEqual(results.map((m) => m.tool_call_id).sort(), ["g1", "g2"]);
      const refused = results.filter((m) => /^error \(budget_exceeded\)/.test(m.content!));
      assert.equal(refused.length, 2 - c.ran);
      // And it resumes, with the budget turned off (with the same one, the session's spend is
      // still over it: session_budgets_test.ts).
      const next = await fx.run(["continue", "capped", "--base-url", server.url], {
        env: { ...c.env, ODEK_MAX_OUTPUT_TOKENS: "0" },
      });
      assert.equal(next.code, 0, next.stderr);
      assert.match(next.stdout, /resumed and finished/);
    });
  }
});

Deno.test("odek run --max-runtime stops a long shell command when the time is up: exit 4, no process left, session saved", async () => {
  await using fx = await odekFixture();
  const marker = uniqueSleep();
  await using server = await startFakeOpenAIServer({
    turns: [{
      toolCalls: [{
        id: "long",
        name: "shell",
        arguments: { command: `${marker} & echo started > started.txt; ${marker}` },
      }],
    }, { text: "never" }],
  });
  const events = join(fx.home, "events.jsonl");
  const run = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--session",
    "slow",
    "--max-runtime",
    "3s",
    "--events-jsonl",
    events,
    "wait a long time",
  ], { env: { ODEK_SANDBOX: "none" } });
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, /Runtime budget spent: [\d.]+ s of 3 s \(--max-runtime/);
  assert.equal(await Deno.readTextFile(join(fx.workspace, "started.txt")), "started\n");
  // Killing is asynchronous in the kernel: wait (a bounded while) for the processes to go.
  assert.deepEqual(await survivorsOf(marker), [], "the command's processes outlived the budget");
  const result = (await journal(fx, "slow")).find((m) => m.tool_call_id === "long")!;
  assert.match(
    result.content!,
    /^error \(interrupted\):\n[^]*\ninterrupted: the command and every process/,
  );
  assert.equal(server.requests.length, 1);
  // The audit file: private, one line per event, the budget event among them, no arguments.
  assert.equal((await Deno.stat(events)).mode! & 0o777, 0o600);
  const lines = (await Deno.readTextFile(events)).trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines[0].type, "run_started");
  assert.deepEqual(lines.find((e) => e.type === "budget_exceeded").data.limit_name, "runtime");
  const started = lines.find((e) => e.type === "tool_call_started");
  assert.match(started.data.args_sha256, /^[0-9a-f]{64}$/);
  assert.ok(!("args" in started.data));
  assert.ok(!(await Deno.readTextFile(events)).includes(marker), "the command is not in the file");
});

Deno.test("odek run --events-jsonl refuses a symlink and a missing folder before the run starts", async () => {
  await using fx = await odekFixture();
  const target = join(fx.home, "target.jsonl");
  await Deno.writeTextFile(target, "");
  await Deno.symlink(target, join(fx.home, "link.jsonl"));
  for (
    const [path, pattern] of [
      [join(fx.home, "link.jsonl"), /symbolic link/],
      [join(fx.home, "nope", "e.jsonl"), /does not exist\. Create it first/],
    ] as const
  ) {
    const run = await fx.run(
      ["run", "--base-url", "http://127.0.0.1:9/v1", "--events-jsonl", path, "x"],
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, pattern);
  }
  assert.equal(await Deno.readTextFile(target), "");
  const list = await fx.run(["sessions", "list"]);
  assert.doesNotMatch(list.stdout, /\d{4}-/, "no session was created");
});

Deno.test("odek run: the iteration budget ends with a partial summary marked as partial, exit 4, and continue goes on", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [
      { toolCalls: [glob("g1", "*.ts")] },
      { text: "Listed the TypeScript files; the tests are still to write." },
      { text: "All done now." },
    ],
  });
  const run = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--session",
    "it",
    "--max-iterations",
    "1",
    "write the tests",
  ]);
  assert.equal(run.code, 4, run.stderr);
  assert.match(
    run.stdout,
    /\[Iteration budget reached — partial summary\]\nListed the TypeScript files; the tests are still to write\.\n/,
  );
  assert.match(run.stderr, /iterations budget spent: 1 of 1/);
  assert.match(run.stderr, /Stopped after 1 model turns \(--max-iterations 1\)/);
  const summaryRequest = server.requests[1].body;
  assert.equal(summaryRequest.tools, undefined, "the summary request offers no tools");
  assert.match(summaryRequest.messages.at(-1).content, /^\[odek\] The iteration budget/);
  const saved = await journal(fx, "it");
  assert.match(saved.at(-1)!.content!, /^\[Iteration budget reached — partial summary\]\n\nListed/);

  const next = await fx.run(["continue", "it", "--base-url", server.url]);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stdout, /All done now\./);
  assert.equal(
    server.requests[2].body.messages.at(-1).content,
    "[odek] Continue the task from where you stopped.",
  );
});

Deno.test("odek run --json: the partial summary is an event", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [{ toolCalls: [glob("g1", "*")] }, { text: "Half way." }],
  });
  const run = await fx.run([
    "run",
    "--base-url",
    server.url,
    "--json",
    "--max-iterations",
    "1",
    "go",
  ]);
  assert.equal(run.code, 4, run.stderr);
  const events = run.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(events.find((e) => e.type === "partial_summary").data, { text: "Half way." });
  assert.deepEqual(events.find((e) => e.type === "budget_exceeded").data, {
    limit_name: "iterations",
    observed: 1,
    limit: 1,
  });
});

Deno.test("odek run: three identical calls get a stall hint from odek, shown in the terminal and saved; the run goes on", async () => {
  await using fx = await odekFixture();
  const same = () => ({ toolCalls: [{ name: "glob", arguments: { pattern: "*.md" } }] });
  await using server = await startFakeOpenAIServer({
    turns: [same(), same(), same(), { text: "Nothing to find; stopping." }],
  });
  const run = await fx.run(["run", "--base-url", server.url, "--session", "loopy", "find docs"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /glob was called 3 times in a row with the same arguments/);
  const hint = server.requests[3].body.messages.at(-1);
  assert.equal(hint.role, "user");
  assert.match(hint.content, /^\[odek\] You have called glob with the same arguments 3 times/);
  assert.deepEqual((await journal(fx, "loopy")).at(-2), hint);
});

Deno.test("odek run --max-cost-usd without the model's prices warns that cost is not enforced and runs", async () => {
  await using fx = await odekFixture();
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "cheap enough", usage: { prompt_tokens: 9_000_000, completion_tokens: 10 } }],
  });
  const run = await fx.run(["run", "--base-url", server.url, "--max-cost-usd", "0.01", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /the cost budget \(\$0\.01\) is not enforced: set both models\."gpt-4\.1-mini"\.inputCostPerMillionUsd and outputCostPerMillionUsd/,
  );
});
