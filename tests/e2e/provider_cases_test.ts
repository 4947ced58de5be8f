/**
 * Issue 14's model-client cases against a real `odek run` process and the fake server in strict
 * mode (HTTP 400 for unpaired tool calls and results, repeated ids, non-JSON history arguments),
 * each with its smallest input; and `--provider` with its key precedence.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ScriptedTurn, startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { type OdekFixture, odekFixture, toolMessages } from "./_odek.ts";

async function fixture(): Promise<OdekFixture> {
  const fx = await odekFixture();
  await Deno.writeTextFile(
    join(fx.odekHome, "config.jsonc"),
    JSON.stringify({ sandbox: "none", retry: { baseMs: 10 }, timeouts: { connectSeconds: 10 } }),
  );
  await Deno.writeTextFile(join(fx.workspace, "a.txt"), "alpha\n");
  await Deno.writeTextFile(join(fx.workspace, "b.txt"), "beta\n");
  return fx;
}

/** Runs one task against a strict fake with `turns`; returns the result and the requests. */
async function runStrict(fx: OdekFixture, id: string, turns: ScriptedTurn[]) {
  await using server = await startFakeOpenAIServer({ turns, strict: true });
  const result = await fx.run(["run", "--session", id, "--base-url", server.url, `task ${id}`]);
  return { result, requests: [...server.requests] };
}

const toolCall = (id: string, name: string, args: string) => ({
  tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: args } }],
});

Deno.test("odek run (case 1): two calls on one index both run, and the next request is valid", async () => {
  await using fx = await fixture();
  const { result, requests } = await runStrict(fx, "same-index", [
    {
      deltas: [
        toolCall("c1", "read_file", '{"path":"a.txt"}'),
        toolCall("c2", "file_info", '{"path":"b.txt"}'),
      ],
      finishReason: "tool_calls",
    },
    { text: "both looked at" },
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests.length, 2);
  assert.equal(requests[1].refused, undefined, requests[1].refusal);
  const results = toolMessages(requests[1].body);
  assert.deepEqual(results.map((m) => m.tool_call_id), ["c1", "c2"]);
  assert.match(results[0].content, /alpha/);
  assert.match(results[1].content, /b\.txt|size|bytes/);
});

Deno.test("odek run (case 3): a zero-argument call streamed with whitespace arguments runs", async () => {
  await using fx = await fixture();
  const { result, requests } = await runStrict(fx, "blank-args", [
    { toolCalls: [{ id: "j1", name: "bg_list", arguments: "   \n " }] },
    { text: "no jobs" },
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests[1].refused, undefined, requests[1].refusal);
  const sent = requests[1].body.messages.find((m: { role: string }) => m.role === "assistant");
  assert.equal(sent.tool_calls[0].function.arguments, "{}");
  assert.doesNotMatch(toolMessages(requests[1].body)[0].raw, /Unexpected end of JSON input/);
});

Deno.test("odek run (case 3): broken arguments are refused for the model and sent back as {}", async () => {
  await using fx = await fixture();
  const { result, requests } = await runStrict(fx, "broken-args", [
    { toolCalls: [{ id: "b1", name: "read_file", arguments: '{"path":"a.txt"' }] },
    { text: "sorry" },
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests[1].refused, undefined, requests[1].refusal);
  assert.match(toolMessages(requests[1].body)[0].raw, /not valid JSON/);
  const sent = requests[1].body.messages.find((m: { role: string }) => m.role === "assistant");
  assert.equal(sent.tool_calls[0].function.arguments, "{}");
  const shown = await fx.run(["sessions", "show", "broken-args"]);
  assert.match(shown.stdout, /\{"path":"a\.txt"/, "the journal keeps what the model sent");
});

Deno.test("odek run (case 4): a quota described only in the body fails at once, quoting it", async () => {
  await using fx = await fixture();
  const body = JSON.stringify({
    error: { message: "You exceeded your daily quota. Your quota will reset in 12 hours." },
  });
  const { result, requests } = await runStrict(fx, "quota", [
    { fault: { type: "status", status: 429, body } },
    { text: "never reached" },
  ]);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(requests.length, 1, "not retried");
  assert.match(
    result.stderr,
    /HTTP 429: You exceeded your daily quota\. Your quota will reset in 12 hours\./,
  );
  assert.match(
    result.stderr,
    /used up until it resets in 12 h 0 min.*retry after \d{4}-\d\d-\d\dT/,
  );
  assert.doesNotMatch(result.stderr, /↻/);
});

Deno.test("odek run (case 9): a base URL serving a web page fails at once, saying what to check", async () => {
  await using fx = await fixture();
  const { promise, resolve } = Promise.withResolvers<Deno.NetAddr>();
  let hits = 0;
  const page = "<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head>" +
    `<body>${"<p>hello</p>".repeat(200)}</body></html>`;
  const site = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: resolve }, async (req) => {
    hits++;
    await req.body?.cancel();
    return new Response(page, { headers: { "content-type": "text/html" } });
  });
  try {
    const { port } = await promise;
    const result = await fx.run(["run", "--base-url", `http://127.0.0.1:${port}`, "task html"]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(hits, 1, "not retried");
    assert.match(result.stderr, /answered HTTP 200 with a web page titled "Welcome to nginx!"/);
    assert.match(result.stderr, new RegExp(`try --base-url http://127\\.0\\.0\\.1:${port}/v1`));
    assert.doesNotMatch(result.stderr, /<p>|<html|cut before the model finished/);
  } finally {
    await site.shutdown();
  }
});

Deno.test("odek run (case 9): a 404 on the chat route suggests the missing /v1", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({ turns: [] });
  const base = server.url.replace(/\/v1$/, "");
  const result = await fx.run(["run", "--base-url", base, "task 404"]);
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    /HTTP 404: .*Nothing serves POST .*\/chat\/completions: most servers serve the API under \/v1, so try --base-url http:\/\/127\.0\.0\.1:\d+\/v1/,
  );
});

Deno.test("odek run (case 9): a 200 of plain text fails at once instead of being retried", async () => {
  // Until issue 14 this input was retried 8 times as a stream "cut off" (model_faults_test).
  await using fx = await fixture();
  const { result, requests } = await runStrict(fx, "plain-200", [
    {
      fault: {
        type: "status",
        status: 200,
        body: "{not json",
        headers: { "content-type": "text/plain" },
      },
    },
    { text: "never reached" },
  ]);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(requests.length, 1);
  assert.match(
    result.stderr,
    /HTTP 200 with data that is not an event stream \(text\/plain\): "\{not json"/,
  );
});

Deno.test("odek run (case 11): a tool call cut at the output limit is reported to the model as such", async () => {
  await using fx = await fixture();
  const cut = '{"path":"notes.txt","content":"the first part of a long fi';
  const { result, requests } = await runStrict(fx, "length-cut", [
    { toolCalls: [{ id: "w1", name: "write_file", arguments: cut }], finishReason: "length" },
    { text: "I will write it in parts" },
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests[1].refused, undefined, requests[1].refusal);
  const [message] = toolMessages(requests[1].body);
  assert.match(message.raw, /cut off: your reply reached the output token limit/);
  assert.equal(await Deno.stat(join(fx.workspace, "notes.txt")).catch(() => null), null);
});

Deno.test("odek run --provider: the preset's key variable is read after ODEK_API_KEY, before OPENAI_API_KEY", async (t) => {
  await using fx = await fixture();
  const cases: [string, Record<string, string>, string][] = [
    [
      "the preset's variable",
      { GROQ_API_KEY: "gsk-preset-0001", OPENAI_API_KEY: "sk-other-0001" },
      "gsk-preset-0001",
    ],
    [
      "ODEK_API_KEY first",
      { ODEK_API_KEY: "odek-key-0001", GROQ_API_KEY: "gsk-preset-0001" },
      "odek-key-0001",
    ],
    ["OPENAI_API_KEY last", { OPENAI_API_KEY: "sk-other-0001" }, "sk-other-0001"],
  ];
  for (const [name, env, expected] of cases) {
    await t.step(name, async () => {
      await using server = await startFakeOpenAIServer({ turns: [{ text: "hi" }] });
      // --base-url overrides the preset's URL: nothing here reaches the provider.
      const result = await fx.run(
        ["run", "--provider", "groq", "--base-url", server.url, "task key"],
        { env },
      );
      assert.equal(result.code, 0, result.stderr);
      assert.equal(server.requests[0].authorization, `Bearer ${expected}`);
    });
  }
});

Deno.test("odek run --provider: an unknown preset is a usage error naming the choices", async () => {
  await using fx = await fixture();
  const result = await fx.run(["run", "--provider", "openia", "task"]);
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--provider.*"openia".*one of "auto", "openai", "openrouter"/);
});
