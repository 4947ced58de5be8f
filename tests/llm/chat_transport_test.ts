import assert from "node:assert/strict";
import {
  ModelApiError,
  ModelConnectionError,
  streamChatCompletion,
} from "../../src/llm/_chat_transport.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { OdekError } from "../../src/_util/odek_error.ts";

const KEY = "sk-transport-test-key";

function answering(response: () => Response): typeof fetch {
  return () => Promise.resolve(response());
}

function sse(body: string | ReadableStream<Uint8Array>): Response {
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function collect(fetcher: typeof fetch): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (
    const chunk of streamChatCompletion(
      { baseURL: "http://127.0.0.1:1/v1", apiKey: KEY, fetch: fetcher },
      { model: "m" },
      {},
    )
  ) out.push(chunk);
  return out;
}

async function failure(fetcher: typeof fetch): Promise<unknown> {
  try {
    await collect(fetcher);
  } catch (err) {
    return err;
  }
  throw new Error("expected a failure");
}

Deno.test("streamChatCompletion: events split across reads, comments, CRLF and multi-line data are framed per the EventSource rules", async () => {
  const encoder = new TextEncoder();
  const pieces = [
    ": keep-alive\r\n\r\nda",
    'ta: {"a":\r\ndata: 1}\r\n\r\nevent: message\nid: 7\nretry: 10\ndata: {"b":2}\n',
    '\ndata: [DONE]\n\ndata: {"after":true}\n\n',
  ];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
  assert.deepEqual(await collect(answering(() => sse(body))), [{ a: 1 }, { b: 2 }]);
});

Deno.test("streamChatCompletion: an unfinished last event is dropped; [DONE] stops reading and cancels the body", async () => {
  assert.deepEqual(
    await collect(answering(() => sse('data: {"a":1}\n\ndata: {"cut":'))),
    [{ a: 1 }],
  );
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('data: {"a":1}\n\ndata: [DONE]\n\n'));
    },
    cancel() {
      cancelled = true;
    },
  });
  assert.deepEqual(await collect(answering(() => sse(body))), [{ a: 1 }]);
  assert.ok(cancelled, "the body is cancelled after [DONE]");
});

Deno.test("streamChatCompletion: an error object in a chunk or an `event: error` is a ModelApiError without a status", async () => {
  const inChunk = await failure(
    answering(() => sse('data: {"error":{"message":"overloaded","code":"529"}}\n\n')),
  );
  assert.ok(inChunk instanceof ModelApiError);
  assert.equal(inChunk.status, undefined);
  assert.deepEqual(inChunk.error, { message: "overloaded", code: "529" });
  const named = await failure(answering(() => sse('event: error\ndata: {"message":"boom"}\n\n')));
  assert.ok(named instanceof ModelApiError);
  assert.deepEqual(named.error, { message: "boom" });
});

Deno.test("streamChatCompletion: data that is not JSON is a SyntaxError (a malformed stream)", async () => {
  const err = await failure(answering(() => sse("data: {not json\n\n")));
  assert.ok(err instanceof SyntaxError);
});

Deno.test("streamChatCompletion: a failed status keeps the JSON error object, the whole JSON body without one, or the text", async () => {
  const headers = { "content-type": "application/json", "retry-after": "3" };
  const withError = await failure(
    answering(() =>
      new Response(JSON.stringify({ error: { message: "slow down", type: "rate_limit" } }), {
        status: 429,
        headers,
      })
    ),
  );
  assert.ok(withError instanceof ModelApiError);
  assert.equal(withError.status, 429);
  assert.deepEqual(withError.error, { message: "slow down", type: "rate_limit" });
  assert.equal(withError.headers?.get("retry-after"), "3");
  assert.equal(withError.message, "429 slow down");
  const detail = await failure(
    answering(() =>
      new Response(JSON.stringify({ detail: "Not Found" }), { status: 404, headers })
    ),
  );
  assert.ok(detail instanceof ModelApiError);
  assert.deepEqual(detail.error, { detail: "Not Found" });
  const text = await failure(answering(() => new Response("bad gateway", { status: 502 })));
  assert.ok(text instanceof ModelApiError);
  assert.equal(text.error, undefined);
  assert.equal(text.body, "bad gateway");
  assert.equal(text.message, "502 bad gateway");
  const empty = await failure(answering(() => new Response(null, { status: 503 })));
  assert.equal((empty as ModelApiError).message, "503 status code (no body)");
});

Deno.test("streamChatCompletion: a fetch that throws is a ModelConnectionError whose cause is what it threw", async () => {
  const cause = new TypeError("error sending request: connection refused");
  const err = await failure(() => Promise.reject(cause));
  assert.ok(err instanceof ModelConnectionError);
  assert.equal(err.cause, cause);
});

Deno.test("streamChatCompletion: onResponse is told once a 2xx response's headers are in, before the body is read; never for an error status or a fetch that throws", async () => {
  const told: string[] = [];
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      told.push("body read");
      controller.enqueue(new TextEncoder().encode('data: {"n":1}\n\ndata: [DONE]\n\n'));
      controller.close();
    },
  }, { highWaterMark: 0 });
  const stream = streamChatCompletion(
    { baseURL: "http://127.0.0.1:1/v1", apiKey: KEY, fetch: () => Promise.resolve(sse(body)) },
    { model: "m" },
    { onResponse: () => told.push("response") },
  );
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.deepEqual(chunks, [{ n: 1 }]);
  assert.deepEqual(told, ["response", "body read"]);

  const refused: string[] = [];
  const failed = streamChatCompletion(
    {
      baseURL: "http://127.0.0.1:1/v1",
      apiKey: KEY,
      fetch: () => Promise.reject(new TypeError("connection refused")),
    },
    { model: "m" },
    { onResponse: () => refused.push("response") },
  );
  await assert.rejects(async () => {
    for await (const _ of failed) { /* nothing comes */ }
  }, ModelConnectionError);
  assert.deepEqual(refused, []);

  // An error status is an answer too, but not an accepted request: the run may end on it.
  const rejected: string[] = [];
  const unauthorized = streamChatCompletion(
    {
      baseURL: "http://127.0.0.1:1/v1",
      apiKey: KEY,
      fetch: () =>
        Promise.resolve(new Response('{"error":{"message":"bad key"}}', { status: 401 })),
    },
    { model: "m" },
    { onResponse: () => rejected.push("response") },
  );
  await assert.rejects(async () => {
    for await (const _ of unauthorized) { /* nothing comes */ }
  });
  assert.deepEqual(rejected, []);
});

Deno.test("OpenAIModel: a 404 whose JSON body has no error object quotes the body, with the /v1 hint", async () => {
  const model = new OpenAIModel({
    baseURL: "http://127.0.0.1:1",
    apiKey: KEY,
    model: "m",
    fetch: answering(() =>
      new Response(JSON.stringify({ detail: "Not Found" }), {
        status: 404,
        headers: { "content-type": "application/json" },
      })
    ),
    retry: { maxAttempts: 1 },
  });
  const err = await model.complete({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    iteration: 1,
  }).then(() => undefined, (e) => e);
  assert.ok(err instanceof OdekError && err.code === "MODEL_ERROR", String(err));
  assert.match(err.message, /answered HTTP 404: \{"detail":"Not Found"\}/);
  assert.match(err.message, /try --base-url http:\/\/127\.0\.0\.1:1\/v1/);
  assert.ok(!err.message.includes(KEY));
});

Deno.test("OpenAIModel tells the request's onResponse when an attempt is accepted, before its first delta; not for a retried error status", async () => {
  let attempt = 0;
  const model = new OpenAIModel({
    baseURL: "http://127.0.0.1:1/v1",
    apiKey: KEY,
    model: "m",
    fetch: answering(() =>
      ++attempt === 1 ? new Response('{"error":{"message":"busy"}}', { status: 503 }) : sse(
        'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      )
    ),
    retry: { maxAttempts: 2, baseMs: 1, maxMs: 1 },
  });
  const told: string[] = [];
  const answer = await model.complete({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    iteration: 1,
    onResponse: () => told.push(`response ${attempt}`),
    onRetry: () => told.push("retry"),
  }, (delta) => told.push(`delta ${delta.type}`));
  assert.equal(answer.message.content, "hi");
  assert.deepEqual(told, ["retry", "response 2", "delta text"]);
});
