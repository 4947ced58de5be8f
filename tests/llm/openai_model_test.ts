import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ModelDelta, ModelRequest, ToolSpec } from "../../src/llm/model.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { FakeClock } from "../../src/testing/fake_clock.ts";

const KEY = "sk-test-0123456789abcdef";
/** Options with retries off, for tests of how one failed attempt is reported. */
const ONCE = { apiKey: KEY, model: "m", retry: { maxAttempts: 1 } } as const;

function request(iteration = 1, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: [{ role: "user", content: "hi" }], tools: [], iteration, ...overrides };
}

const GLOB_TOOL: ToolSpec = {
  type: "function",
  function: { name: "glob", description: "find files", parameters: { type: "object" } },
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("expected a rejection");
}

function deadPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("OpenAIModel.complete() streams text and reasoning as deltas", async () => {
  const text = "Hello there, this is a streamed answer.";
  await using server = await startFakeOpenAIServer({
    turns: [{
      text,
      reasoning: "Let me think.",
      usage: { prompt_tokens: 11, completion_tokens: 7 },
    }],
  });
  const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "test-model" });
  const deltas: ModelDelta[] = [];
  const res = await model.complete(request(), (d) => deltas.push(d));

  assert.deepEqual(res.message, {
    role: "assistant",
    content: text,
    reasoning_content: "Let me think.",
  });
  assert.equal(res.finishReason, "stop");
  assert.deepEqual(res.usage, { inputTokens: 11, outputTokens: 7 });
  const textDeltas = deltas.filter((d) => d.type === "text");
  assert.ok(textDeltas.length > 3, "text arrives in several pieces");
  assert.equal(textDeltas.map((d) => d.text).join(""), text);
  assert.equal(
    deltas.filter((d) => d.type === "reasoning").map((d) => d.text).join(""),
    "Let me think.",
  );

  const body = server.requests[0].body;
  assert.equal(body.model, "test-model");
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal("tools" in body, false, "no tools key when the list is empty");
  assert.deepEqual(body.messages, [{ role: "user", content: "hi" }]);
});

Deno.test("OpenAIModel.complete() assembles two interleaved parallel tool calls", async () => {
  const readArgs = { path: "src/very/long/path/to/a/file.ts", limit: 200 };
  const globArgs = { pattern: "**/*.{ts,tsx}", cwd: "." };
  await using server = await startFakeOpenAIServer({
    turns: [{
      toolCalls: [
        { id: "call_a", name: "read_file", arguments: readArgs },
        { id: "call_b", name: "glob", arguments: globArgs },
      ],
    }],
  });
  const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m" });
  const deltas: ModelDelta[] = [];
  const res = await model.complete(request(1, { tools: [GLOB_TOOL] }), (d) => deltas.push(d));

  assert.equal(res.finishReason, "tool_calls");
  assert.equal(res.message.content, null);
  assert.deepEqual(res.message.tool_calls, [
    {
      id: "call_a",
      type: "function",
      function: { name: "read_file", arguments: JSON.stringify(readArgs) },
    },
    {
      id: "call_b",
      type: "function",
      function: { name: "glob", arguments: JSON.stringify(globArgs) },
    },
  ]);
  assert.deepEqual(deltas.filter((d) => d.type === "tool_call"), [
    { type: "tool_call", index: 0, name: "read_file" },
    { type: "tool_call", index: 1, name: "glob" },
  ]);
  assert.deepEqual(server.requests[0].body.tools, [GLOB_TOOL]);
});

Deno.test('OpenAIModel.complete() turns empty arguments into "{}" and fills missing ids', async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{
      toolCalls: [
        { id: "call_x", name: "glob", arguments: { pattern: "*" } },
        { id: null, name: "read_file", arguments: "" },
      ],
    }],
  });
  const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m" });
  const res = await model.complete(request(3));
  const calls = res.message.tool_calls ?? [];
  assert.equal(calls.length, 2);
  assert.equal(calls[0].id, "call_x");
  assert.equal(calls[1].id, "it3-call1");
  assert.equal(calls[1].function.arguments, "{}");
});

Deno.test("OpenAIModel.complete() fails a cut stream with MODEL_PROTOCOL when retries are off", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "this answer will be cut short", fault: { type: "cut", afterChunks: 3 } }],
  });
  const model = new OpenAIModel({ ...ONCE, baseURL: server.url });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_PROTOCOL");
  assert.match(err.message, /cut before the model finished/);
});

Deno.test("OpenAIModel.complete() tolerates a stream without [DONE]", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "complete answer", fault: { type: "no_done" } }],
  });
  const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m" });
  const res = await model.complete(request());
  assert.equal(res.message.content, "complete answer");
  assert.equal(res.finishReason, "stop");
});

Deno.test("OpenAIModel.complete() fails malformed or choice-less streams with MODEL_PROTOCOL when retries are off", async (t) => {
  await using server = await startFakeOpenAIServer({
    turns: [
      { text: "some words in a stream", fault: { type: "malformed" } },
      { fault: { type: "empty_choices" } },
    ],
  });
  const model = new OpenAIModel({ ...ONCE, baseURL: server.url });
  for (
    const [name, pattern] of [["malformed", /not valid JSON/], [
      "empty_choices",
      /empty "choices"/,
    ]] as const
  ) {
    await t.step(name, async () => {
      const err = await rejection(model.complete(request()));
      assert.ok(err instanceof OdekError);
      assert.equal(err.code, "MODEL_PROTOCOL");
      assert.match(err.message, pattern);
    });
  }
});

Deno.test("OpenAIModel.complete() maps an HTTP 500 to MODEL_ERROR with the provider message", async () => {
  const long = "x".repeat(2000);
  await using server = await startFakeOpenAIServer({
    turns: [
      {
        fault: {
          type: "status",
          status: 500,
          body: JSON.stringify({ error: { message: "upstream overloaded" } }),
        },
      },
      {
        fault: { type: "status", status: 400, body: JSON.stringify({ error: { message: long } }) },
      },
    ],
  });
  const model = new OpenAIModel({ ...ONCE, baseURL: server.url });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /HTTP 500: upstream overloaded/);
  assert.ok(err.message.includes(server.url));
  assert.equal(server.requests.length, 1, "no SDK retry");

  const truncated = await rejection(model.complete(request()));
  assert.ok(truncated instanceof OdekError);
  assert.match(truncated.message, /HTTP 400: x{500}…$/);
});

Deno.test("OpenAIModel.complete() reports a refused connection as MODEL_UNREACHABLE naming the URL after two quick retries", async () => {
  const url = `http://127.0.0.1:${deadPort()}/v1`;
  let attempts = 0;
  const countingFetch: typeof fetch = (input, init) => {
    attempts++;
    return fetch(input, init);
  };
  const clock = new FakeClock();
  const model = new OpenAIModel({
    baseURL: url,
    apiKey: KEY,
    model: "m",
    fetch: countingFetch,
    clock,
  });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_UNREACHABLE");
  assert.match(
    err.message,
    new RegExp(
      `^Cannot reach the model at ${url.replaceAll(".", "\\.")}: connection refused\\. ` +
        `Check --base-url / ODEK_BASE_URL and that the server is running \\(gave up after 3 attempts`,
    ),
  );
  assert.equal(attempts, 3, "two quick retries, no SDK retries");
  assert.deepEqual(clock.sleeps, [250, 500]);
  assert.ok(!err.message.includes(KEY));
});

Deno.test("OpenAIModel sends the API key as Bearer and never puts it in an error message", async () => {
  const echo = JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } });
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "ok" }, { fault: { type: "status", status: 401, body: echo } }],
  });
  const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m" });
  await model.complete(request());
  assert.equal(server.requests[0].authorization, `Bearer ${KEY}`);
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /Incorrect API key provided: \[redacted\]/);
  assert.ok(!err.message.includes(KEY));
});

Deno.test("OpenAIModel.complete() rethrows the abort reason", async (t) => {
  await t.step("while the server hangs after the headers", async () => {
    const controller = new AbortController();
    await using server = await startFakeOpenAIServer({
      turns: () => {
        setTimeout(() => controller.abort(), 20);
        return { fault: { type: "hang" } };
      },
    });
    const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m" });
    const err = await rejection(model.complete(request(1, { signal: controller.signal })));
    assert.equal(err, controller.signal.reason);
    assert.equal((err as DOMException).name, "AbortError");
  });
  await t.step("in the middle of the stream", async () => {
    const controller = new AbortController();
    await using server = await startFakeOpenAIServer({
      turns: [{ text: "a long answer that keeps coming", chunkDelayMs: 5 }],
    });
    const model = new OpenAIModel({ baseURL: server.url, apiKey: KEY, model: "m" });
    const err = await rejection(
      model.complete(request(1, { signal: controller.signal }), () => controller.abort()),
    );
    assert.equal(err, controller.signal.reason);
    assert.equal((err as DOMException).name, "AbortError");
  });
});

Deno.test("new OpenAIModel() refuses an empty API key with MISSING_API_KEY", () => {
  assert.throws(
    () => new OpenAIModel({ baseURL: "http://127.0.0.1:1/v1", apiKey: "", model: "m" }),
    (err: unknown) => err instanceof OdekError && err.code === "MISSING_API_KEY",
  );
});

Deno.test("the model client sends a plain fetch: the method, path, JSON body and headers (extra headers last)", async () => {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetcher: typeof fetch = (input, init) => {
    seen.push({ url: String(input), init: init ?? {} });
    return Promise.resolve(
      new Response(
        'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n' +
          "data: [DONE]\n\n",
        { headers: { "content-type": "text/event-stream" } },
      ),
    );
  };
  const model = new OpenAIModel({
    baseURL: "http://127.0.0.1:1/v1/",
    apiKey: KEY,
    model: "m",
    fetch: fetcher,
    headers: { "x-extra": "1" },
  });
  const res = await model.complete(request(1));
  assert.equal(res.message.content, "ok");
  assert.equal(seen.length, 1);
  assert.equal(seen[0].url, "http://127.0.0.1:1/v1/chat/completions");
  assert.equal(seen[0].init.method, "POST");
  const headers = new Headers(seen[0].init.headers);
  assert.equal(headers.get("authorization"), `Bearer ${KEY}`);
  assert.equal(headers.get("content-type"), "application/json");
  assert.equal(headers.get("x-extra"), "1");
  const body = JSON.parse(String(seen[0].init.body));
  assert.equal(body.model, "m");
  assert.equal(body.stream, true);
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.ok(!("tools" in body), "no tools key without tools");
});

Deno.test("OpenAIModel.complete() reports a DNS failure as MODEL_UNREACHABLE", async () => {
  const dnsFailure: typeof fetch = () =>
    Promise.reject(
      new TypeError("fetch failed", {
        cause: new Error(
          "dns error: failed to lookup address information: Name or service not known",
        ),
      }),
    );
  const url = "http://model.invalid/v1";
  const model = new OpenAIModel({
    baseURL: url,
    apiKey: KEY,
    model: "m",
    fetch: dnsFailure,
    clock: new FakeClock(),
  });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_UNREACHABLE");
  assert.match(
    err.message,
    /^Cannot reach the model at http:\/\/model\.invalid\/v1: .*DNS lookup failed/,
  );
});

Deno.test("OpenAIModel.complete() reports missing response headers as MODEL_UNREACHABLE", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "late", delayMs: 60_000 }] });
  const model = new OpenAIModel({ ...ONCE, baseURL: server.url, connectTimeoutMs: 50 });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_UNREACHABLE");
  assert.match(err.message, /did not start answering within 0\.05 s.*timeouts\.connectSeconds/);
});

Deno.test("OpenAIModel.complete() maps an error object inside the stream to MODEL_ERROR", async () => {
  const sse = 'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n' +
    'data: {"error":{"message":"overloaded mid-stream","type":"server_error"}}\n\n';
  const streamWithError: typeof fetch = () =>
    Promise.resolve(new Response(sse, { headers: { "content-type": "text/event-stream" } }));
  const model = new OpenAIModel({
    ...ONCE,
    baseURL: "http://127.0.0.1:9/v1",
    fetch: streamWithError,
  });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError, String(err));
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /overloaded mid-stream/);
});
