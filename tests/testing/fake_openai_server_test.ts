import assert from "node:assert/strict";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

function chat(
  url: string,
  body: Record<string, unknown>,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-x" },
    body: JSON.stringify({ model: "fake", messages: [{ role: "user", content: "hi" }], ...body }),
    ...init,
  });
}

/** Splits raw SSE text into `data:` payloads, checking the framing byte by byte. */
function ssePayloads(raw: string): string[] {
  assert.ok(raw.endsWith("\n\n"), "the stream ends with a blank line");
  const events = raw.slice(0, -2).split("\n\n");
  return events.map((event) => {
    assert.ok(event.startsWith("data: "), `event starts with "data: ": ${event}`);
    assert.ok(!event.includes("\n"), "one data line per event");
    return event.slice("data: ".length);
  });
}

Deno.test("startFakeOpenAIServer() streams SSE framed and chunked like a provider", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{
      text: "Hello world",
      toolCalls: [
        { id: "call_a", name: "read_file", arguments: { path: "a/long/file/name.txt" } },
        { id: "call_b", name: "glob", arguments: { pattern: "**/*.ts" } },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3 },
    }],
  });
  const res = await chat(server.url, { stream: true, stream_options: { include_usage: true } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  const payloads = ssePayloads(await res.text());
  assert.equal(payloads.at(-1), "[DONE]");
  const chunks: Json[] = payloads.slice(0, -1).map((p) => JSON.parse(p));
  for (const chunk of chunks) {
    assert.equal(chunk.object, "chat.completion.chunk");
    assert.equal(chunk.id, chunks[0].id);
    assert.equal(typeof chunk.created, "number");
    assert.equal(chunk.model, "fake");
  }
  assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
  const text = chunks.flatMap((c) => c.choices).map((c) => c.delta.content ?? "").join("");
  assert.equal(text, "Hello world");

  const calls = chunks.flatMap((c) => c.choices.flatMap((ch: Json) => ch.delta.tool_calls ?? []));
  assert.deepEqual(calls.slice(0, 2), [
    { index: 0, id: "call_a", type: "function", function: { name: "read_file", arguments: "" } },
    { index: 1, id: "call_b", type: "function", function: { name: "glob", arguments: "" } },
  ]);
  const pieces = calls.slice(2);
  assert.deepEqual(pieces.slice(0, 4).map((p: Json) => p.index), [0, 1, 0, 1], "pieces interleave");
  for (const piece of pieces) assert.ok(piece.function.arguments.length <= 7);
  const argsOf = (i: number) =>
    pieces.filter((p: Json) => p.index === i).map((p: Json) => p.function.arguments).join("");
  assert.equal(argsOf(0), JSON.stringify({ path: "a/long/file/name.txt" }));
  assert.equal(argsOf(1), JSON.stringify({ pattern: "**/*.ts" }));

  const [finish, usage] = chunks.slice(-2);
  assert.deepEqual(finish.choices[0].delta, {});
  assert.equal(finish.choices[0].finish_reason, "tool_calls");
  assert.deepEqual(usage.choices, []);
  assert.deepEqual(usage.usage, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });

  assert.equal(server.requests.length, 1);
  assert.equal(server.requests[0].authorization, "Bearer sk-x");
  assert.equal(server.requests[0].body.stream, true);
});

Deno.test("startFakeOpenAIServer() answers a plain JSON completion and lists models", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "plain", reasoning: "r" }] });
  const completion = await (await chat(server.url, {})).json();
  assert.equal(completion.object, "chat.completion");
  assert.deepEqual(completion.choices[0].message, {
    role: "assistant",
    content: "plain",
    reasoning_content: "r",
  });
  assert.equal(completion.choices[0].finish_reason, "stop");
  const models = await (await fetch(`${server.url}/models`)).json();
  assert.equal(models.object, "list");
  assert.equal(models.data[0].id, "fake-model");
  assert.equal(server.requests.length, 1, "only chat completions are recorded");
});

Deno.test("startFakeOpenAIServer() answers HTTP 500 when the script runs out", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "one" }] });
  await (await chat(server.url, {})).body?.cancel();
  const res = await chat(server.url, {});
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.match(body.error.message, /^fake server: no scripted turn 2 \(the script has 1\)$/);
});

Deno.test("startFakeOpenAIServer() calls a turn function with the request and its index", async () => {
  const seen: [string, number][] = [];
  await using server = await startFakeOpenAIServer({
    turns: (request, index) => {
      seen.push([request.body.messages[0].content, index]);
      return { text: `turn ${index}` };
    },
  });
  await (await chat(server.url, {})).text();
  const second = await (await chat(server.url, {})).json();
  assert.deepEqual(seen, [["hi", 0], ["hi", 1]]);
  assert.equal(second.choices[0].message.content, "turn 1");
});

Deno.test("startFakeOpenAIServer() injects faults", async (t) => {
  await using server = await startFakeOpenAIServer({
    turns: [
      { fault: { type: "status", status: 429, retryAfter: "7", body: "slow down" } },
      { text: "one two three four", fault: { type: "cut", afterChunks: 2 } },
      { text: "one two", fault: { type: "no_done" } },
      { text: "one two three", fault: { type: "malformed" } },
      { fault: { type: "empty_choices" } },
    ],
  });
  const stream = { stream: true };
  await t.step("status", async () => {
    const res = await chat(server.url, stream);
    assert.equal(res.status, 429);
    assert.equal(res.headers.get("retry-after"), "7");
    assert.equal(await res.text(), "slow down");
  });
  await t.step("cut", async () => {
    const payloads = ssePayloads(await (await chat(server.url, stream)).text());
    assert.equal(payloads.length, 2);
    assert.ok(payloads.every((p) => JSON.parse(p).choices[0].finish_reason === null));
  });
  await t.step("no_done", async () => {
    const payloads = ssePayloads(await (await chat(server.url, stream)).text());
    assert.notEqual(payloads.at(-1), "[DONE]");
    assert.equal(JSON.parse(payloads.at(-1)!).choices[0].finish_reason, "stop");
  });
  await t.step("malformed", async () => {
    const payloads = ssePayloads(await (await chat(server.url, stream)).text());
    const bad = payloads.filter((p) => {
      try {
        JSON.parse(p);
        return false;
      } catch {
        return p !== "[DONE]";
      }
    });
    assert.equal(bad.length, 1);
    assert.ok(payloads.indexOf(bad[0]) > 0 && payloads.indexOf(bad[0]) < payloads.length - 1);
  });
  await t.step("empty_choices", async () => {
    const payloads = ssePayloads(await (await chat(server.url, stream)).text());
    assert.equal(payloads.at(-1), "[DONE]");
    assert.ok(payloads.slice(0, -1).every((p) => JSON.parse(p).choices.length === 0));
  });
});

Deno.test("startFakeOpenAIServer() ends a hanging stream when it closes", async () => {
  const server = await startFakeOpenAIServer({ turns: [{ fault: { type: "hang" } }] });
  const res = await chat(server.url, { stream: true });
  assert.equal(res.status, 200, "headers arrive before the hang");
  const body = res.text();
  await server.close();
  assert.equal(await body, "");
  await server.finished;
});

Deno.test("startFakeOpenAIServer() stops by itself when idle", async () => {
  const server = await startFakeOpenAIServer({ turns: [], idleTimeoutMs: 30 });
  await server.finished;
  await assert.rejects(fetch(`${server.url}/models`), TypeError);
  await server.close();
});

Deno.test("startFakeOpenAIServer() leaves nothing that keeps a process alive after close()", async () => {
  const module = new URL("../../src/testing/fake_openai_server.ts", import.meta.url).href;
  const script = `
    const { startFakeOpenAIServer } = await import(${JSON.stringify(module)});
    const server = await startFakeOpenAIServer({ turns: [{ text: "hi" }], idleTimeoutMs: 600000 });
    await (await fetch(server.url + "/models")).text();
    await server.close();
    console.log("closed");
  `;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", "--no-config", "--allow-net", "--allow-read", script],
    stdout: "piped",
    stderr: "piped",
    // A guard only: a leaked idle timer would keep the child alive for 10 minutes.
    signal: AbortSignal.timeout(60_000),
  });
  const { code, stdout, stderr } = await child.output();
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, err);
  assert.equal(new TextDecoder().decode(stdout).trim(), "closed");
});

Deno.test("startFakeOpenAIServer() counts ceil(UTF-8 bytes / 4) of messages and tools and reports it as prompt_tokens", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "a" }, { text: "b" }] });
  const messages = [{ role: "user", content: "héllo 中文" }];
  const tools = [{ type: "function", function: { name: "x", description: "d", parameters: {} } }];
  const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;
  const first: Json = await (await chat(server.url, { messages, tools })).json();
  assert.equal(server.requests[0].promptTokens, Math.ceil((bytes(messages) + bytes(tools)) / 4));
  assert.equal(first.usage.prompt_tokens, server.requests[0].promptTokens);
  await (await chat(server.url, { messages })).json();
  assert.equal(server.requests[1].promptTokens, Math.ceil(bytes(messages) / 4));
});

Deno.test("startFakeOpenAIServer() with contextWindow refuses an oversize request with the context-length 400, without using a turn", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [{ text: "fits" }],
    contextWindow: 100,
  });
  const big = await chat(server.url, { messages: [{ role: "user", content: "x".repeat(1000) }] });
  assert.equal(big.status, 400);
  const body: Json = await big.json();
  assert.equal(body.error.code, "context_length_exceeded");
  assert.match(body.error.message, /maximum context length is 100 tokens/);
  assert.equal(server.requests[0].refused, true);
  const small: Json = await (await chat(server.url, {})).json();
  assert.equal(small.choices[0].message.content, "fits");
});
