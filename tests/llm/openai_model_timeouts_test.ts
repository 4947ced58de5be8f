import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ModelRetry } from "../../src/llm/model.ts";
import { OpenAIModel } from "../../src/llm/openai_model.ts";
import { FakeClock } from "../../src/testing/fake_clock.ts";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { startResetProxy } from "../../src/testing/reset_proxy.ts";
import { scriptedFetch, silentAnswer, sseAnswer, stalledAnswer } from "./_scripted_fetch.ts";

const KEY = "sk-test-0123456789abcdef";
const HELLO = 'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n';

function request(retries: ModelRetry[]) {
  return {
    messages: [{ role: "user" as const, content: "hi" }],
    tools: [],
    iteration: 1,
    onRetry: (r: ModelRetry) => retries.push(r),
  };
}

Deno.test("OpenAIModel retries after the connect timeout when no response starts", async () => {
  const fetch = scriptedFetch([silentAnswer, sseAnswer("ok")]);
  const retries: ModelRetry[] = [];
  const model = new OpenAIModel({
    baseURL: "http://model.test/v1",
    apiKey: KEY,
    model: "m",
    fetch,
    clock: new FakeClock(),
    connectTimeoutMs: 30,
  });
  const res = await model.complete(request(retries));
  assert.equal(res.message.content, "ok");
  assert.deepEqual(retries.map((r) => r.reason), ["connect_timeout"]);
});

Deno.test("OpenAIModel retries a stream that stalls after its first bytes (stream-idle timeout)", async () => {
  const fetch = scriptedFetch([stalledAnswer([HELLO]), sseAnswer("ok")]);
  const retries: ModelRetry[] = [];
  const model = new OpenAIModel({
    baseURL: "http://model.test/v1",
    apiKey: KEY,
    model: "m",
    fetch,
    clock: new FakeClock(),
    streamIdleTimeoutMs: 40,
  });
  const res = await model.complete(request(retries));
  assert.equal(res.message.content, "ok");
  assert.deepEqual(retries.map((r) => r.reason), ["stream_idle"]);
});

Deno.test("OpenAIModel gives up on a stalled stream with a message naming the setting", async () => {
  const fetch = scriptedFetch([stalledAnswer([HELLO])]);
  const model = new OpenAIModel({
    baseURL: "http://model.test/v1",
    apiKey: KEY,
    model: "m",
    fetch,
    clock: new FakeClock(),
    streamIdleTimeoutMs: 20,
    retry: { maxAttempts: 2 },
  });
  const err = await model.complete(request([])).catch((e) => e);
  assert.ok(err instanceof OdekError, String(err));
  assert.equal(err.code, "MODEL_PROTOCOL");
  assert.match(
    err.message,
    /stalled: no bytes for 0\.02 s.*timeouts\.streamIdleSeconds.*2 attempts/,
  );
  assert.equal(fetch.calls, 2);
});

Deno.test("OpenAIModel does not retry a request that crosses the per-request cap", async () => {
  // Bytes keep trickling (never idle), but the whole request takes too long.
  const fetch = scriptedFetch([stalledAnswer([HELLO], 5), sseAnswer("never")]);
  const model = new OpenAIModel({
    baseURL: "http://model.test/v1",
    apiKey: KEY,
    model: "m",
    fetch,
    clock: new FakeClock(),
    requestTimeoutMs: 80,
    streamIdleTimeoutMs: 10_000,
  });
  const err = await model.complete(request([])).catch((e) => e);
  assert.ok(err instanceof OdekError, String(err));
  assert.equal(err.code, "MODEL_UNREACHABLE");
  assert.match(err.message, /did not finish within 0\.08 s.*timeouts\.requestSeconds/);
  assert.equal(fetch.calls, 1);
});

Deno.test("OpenAIModel against the fake server: a reset mid-response and a stall are retried", async () => {
  await using server = await startFakeOpenAIServer({
    turns: [
      { text: "first try", fault: { type: "reset", afterChunks: 2 } },
      { text: "second try", fault: { type: "stall", afterChunks: 2 } },
      { text: "third try" },
    ],
  });
  const retries: ModelRetry[] = [];
  const model = new OpenAIModel({
    baseURL: server.url,
    apiKey: KEY,
    model: "m",
    clock: new FakeClock(),
    streamIdleTimeoutMs: 100,
  });
  const res = await model.complete(request(retries));
  assert.equal(res.message.content, "third try");
  assert.deepEqual(retries.map((r) => r.reason), ["reset", "stream_idle"]);
  assert.equal(server.requests.length, 3);
});

Deno.test("OpenAIModel retries a connection dropped before any response (reset proxy)", async () => {
  await using server = await startFakeOpenAIServer({ turns: [{ text: "through" }] });
  await using proxy = await startResetProxy({ target: server.url, resets: 2 });
  const retries: ModelRetry[] = [];
  const model = new OpenAIModel({
    baseURL: proxy.url,
    apiKey: KEY,
    model: "m",
    clock: new FakeClock(),
  });
  const res = await model.complete(request(retries));
  assert.equal(res.message.content, "through");
  assert.equal(proxy.resetCount, 2);
  assert.deepEqual(retries.map((r) => r.reason), ["reset", "reset"]);
  assert.equal(server.requests.length, 1);
});
