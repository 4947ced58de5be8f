import assert from "node:assert/strict";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ModelDelta, ModelRequest, ModelRetry } from "../../src/llm/model.ts";
import { OpenAIModel, type OpenAIModelOptions } from "../../src/llm/openai_model.ts";
import { FakeClock } from "../../src/testing/fake_clock.ts";
import { type Answer, errorAnswer, scriptedFetch, sseAnswer } from "./_scripted_fetch.ts";

const KEY = "sk-test-0123456789abcdef";

function setup(answers: Answer[], options: Partial<OpenAIModelOptions> = {}) {
  const fetch = scriptedFetch(answers);
  const clock = options.clock instanceof FakeClock ? options.clock : new FakeClock();
  const model = new OpenAIModel({
    baseURL: "http://model.test/v1",
    apiKey: KEY,
    model: "m",
    fetch,
    clock,
    ...options,
  });
  // `clock: undefined` in options asks for the real clock (the FakeClock then sees nothing).
  const retries: ModelRetry[] = [];
  const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    iteration: 1,
    onRetry: (r) => retries.push(r),
    ...extra,
  });
  return { fetch, clock, model, retries, request };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("expected a rejection");
}

Deno.test("OpenAIModel retries a 503 seven times with exponential backoff and succeeds on the 8th attempt", async () => {
  const { fetch, clock, model, retries, request } = setup([
    ...Array(7).fill(errorAnswer(503)),
    sseAnswer("finally"),
  ]);
  const res = await model.complete(request());
  assert.equal(res.message.content, "finally");
  assert.equal(fetch.calls, 8);
  assert.deepEqual(clock.sleeps, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  assert.deepEqual(retries.map((r) => r.attempt), [2, 3, 4, 5, 6, 7, 8]);
  assert.ok(
    retries.every((r) => r.maxAttempts === 8 && r.reason === "http_503" && r.status === 503),
  );
  assert.deepEqual(retries.map((r) => r.waitMs), clock.sleeps);
});

Deno.test("OpenAIModel gives up after 8 attempts and says so", async () => {
  const { fetch, clock, model, request } = setup([errorAnswer(529, { message: "Overloaded" })]);
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /HTTP 529: Overloaded \(gave up after 8 attempts over 1 min 31 s\)\.$/);
  assert.equal(fetch.calls, 8);
  assert.equal(clock.sleeps.length, 7);
});

Deno.test("OpenAIModel jitters each wait within ±25 %", async () => {
  const clock = new FakeClock({ random: [0, 0.999999, 0.25] });
  const { model, request } = setup([
    errorAnswer(500),
    errorAnswer(502),
    errorAnswer(504),
    sseAnswer(),
  ], {
    clock,
  });
  await model.complete(request());
  assert.deepEqual(clock.sleeps, [750, 2500, 3500]);
});

Deno.test("OpenAIModel honours Retry-After in seconds and as an HTTP date", async (t) => {
  await t.step("seconds", async () => {
    const { clock, model, retries, request } = setup([
      errorAnswer(429, { message: "slow down" }, { "retry-after": "7" }),
      sseAnswer(),
    ]);
    await model.complete(request());
    assert.deepEqual(clock.sleeps, [7000]);
    assert.equal(retries[0].reason, "http_429");
  });
  await t.step("HTTP date", async () => {
    const clock = new FakeClock({ startMs: Date.UTC(2026, 10, 30, 12, 0, 0) });
    const { model, request } = setup([
      errorAnswer(503, {}, { "retry-after": "Mon, 30 Nov 2026 12:01:30 GMT" }),
      sseAnswer(),
    ], { clock });
    await model.complete(request());
    assert.deepEqual(clock.sleeps, [90_000]);
  });
  await t.step("a wait named in the message", async () => {
    const { clock, model, request } = setup([
      errorAnswer(429, { message: "Rate limit reached. Please try again in 1.5s." }),
      sseAnswer(),
    ]);
    await model.complete(request());
    assert.deepEqual(clock.sleeps, [1500]);
  });
});

Deno.test("OpenAIModel fails fast when Retry-After is beyond the cap, saying when to retry", async () => {
  const clock = new FakeClock({ startMs: Date.UTC(2026, 10, 30, 12, 0, 0) });
  const { fetch, model, request } = setup([
    errorAnswer(429, { message: "Too many requests" }, { "retry-after": "10800" }),
  ], { clock });
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_ERROR");
  assert.match(err.message, /HTTP 429: Too many requests\. It asks to wait 3 h 0 min/);
  assert.match(err.message, /retry\.retryAfterCapSeconds\): retry after 2026-11-30T15:00:00Z/);
  assert.equal(fetch.calls, 1);
  assert.deepEqual(clock.sleeps, []);
});

Deno.test("OpenAIModel fails fast on an exhausted quota", async (t) => {
  await t.step("insufficient_quota", async () => {
    const { fetch, model, request } = setup([
      errorAnswer(429, {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        code: "insufficient_quota",
      }),
    ]);
    const err = await rejection(model.complete(request()));
    assert.ok(err instanceof OdekError);
    assert.match(err.message, /quota or balance is used up.*plan and billing/);
    assert.equal(fetch.calls, 1);
  });
  await t.step("a rate-limit reset hours away", async () => {
    const { fetch, model, request } = setup([
      errorAnswer(429, { message: "Daily limit reached" }, {
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "5h0m0s",
      }),
    ]);
    const err = await rejection(model.complete(request()));
    assert.ok(err instanceof OdekError);
    assert.match(err.message, /It asks to wait 5 h 0 min.*retry after \d{4}-\d\d-\d\dT/);
    assert.equal(fetch.calls, 1);
  });
});

Deno.test("OpenAIModel throws CONTEXT_LENGTH_EXCEEDED at once for a context-length refusal", async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ["by code", { message: "too long", code: "context_length_exceeded" }],
    ["by message", {
      message: "This model's maximum context length is 8192 tokens. However, you requested 9000.",
    }],
  ];
  for (const [name, error] of cases) {
    await t.step(name, async () => {
      const { fetch, clock, model, request } = setup([errorAnswer(400, error)]);
      const err = await rejection(model.complete(request()));
      assert.ok(err instanceof OdekError);
      assert.equal(err.code, "CONTEXT_LENGTH_EXCEEDED");
      assert.match(err.message, /exceeds its context window/);
      assert.equal(fetch.calls, 1);
      assert.deepEqual(clock.sleeps, []);
    });
  }
});

Deno.test("OpenAIModel does not take any 'maximum length' 400 for a context-length error", async () => {
  const { fetch, model, request } = setup([
    errorAnswer(400, {
      message:
        "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64",
    }),
  ]);
  const err = await rejection(model.complete(request()));
  assert.ok(err instanceof OdekError);
  assert.equal(err.code, "MODEL_ERROR");
  assert.equal(fetch.calls, 1);
});

Deno.test("OpenAIModel never retries a 401, a CASSETTE_MISMATCH or the caller's own exception", async () => {
  const unauthorized = setup([errorAnswer(401, { message: "bad key" }), sseAnswer()]);
  const err = await rejection(unauthorized.model.complete(unauthorized.request()));
  assert.ok(err instanceof OdekError && err.code === "MODEL_ERROR");
  assert.equal(unauthorized.fetch.calls, 1);

  const mismatch = new OdekError("CASSETTE_MISMATCH", "the run diverged");
  const replay = setup([mismatch, sseAnswer()]);
  assert.equal(await rejection(replay.model.complete(replay.request())), mismatch);
  assert.equal(replay.fetch.calls, 1);

  const own = new Error("renderer broke");
  const callback = setup([sseAnswer()]);
  const thrown = await rejection(callback.model.complete(callback.request(), () => {
    throw own;
  }));
  assert.equal(thrown, own);
  assert.equal(callback.fetch.calls, 1);
});

Deno.test("OpenAIModel retries broken 200s: malformed JSON, zero choices, a stream cut before finish_reason", async () => {
  const malformed = new Response("data: {not json\n\n", {
    headers: { "content-type": "text/event-stream" },
  });
  const noChoices = new Response(
    'data: {"choices":[]}\n\ndata: {"choices":[]}\n\ndata: [DONE]\n\n',
    {
      headers: { "content-type": "text/event-stream" },
    },
  );
  const { fetch, model, retries, request } = setup([
    malformed,
    noChoices,
    sseAnswer("cut", { finish: false }),
    sseAnswer("whole"),
  ]);
  const res = await model.complete(request());
  assert.equal(res.message.content, "whole");
  assert.equal(fetch.calls, 4);
  assert.deepEqual(retries.map((r) => r.reason), ["malformed", "empty_choices", "cut"]);
});

Deno.test("OpenAIModel: text streamed before a retry is streamed again, and the turn holds it once", async () => {
  const { model, request } = setup([
    sseAnswer("partial answer", { finish: false }),
    sseAnswer("full answer"),
  ]);
  const seen: string[] = [];
  const res = await model.complete(
    request({ onRetry: (r) => seen.push(`<retry ${r.attempt}>`) }),
    (d: ModelDelta) => d.type === "text" && seen.push(d.text),
  );
  assert.equal(res.message.content, "full answer");
  assert.deepEqual(seen, ["partial", " answer", "<retry 2>", "full a", "nswer"]);
});

Deno.test("OpenAIModel retries a connection reset", async () => {
  const reset = new TypeError("fetch failed", {
    cause: new Error("error sending request: connection closed before message completed"),
  });
  const { fetch, retries, model, request } = setup([reset, sseAnswer()]);
  await model.complete(request());
  assert.equal(fetch.calls, 2);
  assert.equal(retries[0].reason, "reset");
});

Deno.test("OpenAIModel: a retry wait ends at once when the run is aborted", async () => {
  const controller = new AbortController();
  const { model, request } = setup([errorAnswer(503), sseAnswer()], {
    clock: undefined,
    retry: { baseMs: 60_000 },
  });
  const started = performance.now();
  const pending = model.complete(request({
    signal: controller.signal,
    onRetry: () => setTimeout(() => controller.abort(), 10),
  }));
  const err = await rejection(pending);
  assert.equal(err, controller.signal.reason);
  assert.ok(performance.now() - started < 30_000, "did not wait the minute out");
});

Deno.test("OpenAIModel fails at once on a port fetch blocks (http://127.0.0.1:9), naming the port", async () => {
  const retries: ModelRetry[] = [];
  const clock = new FakeClock();
  const model = new OpenAIModel({
    baseURL: "http://127.0.0.1:9/v1",
    apiKey: KEY,
    model: "m",
    clock,
  });
  const err = await rejection(model.complete({
    messages: [{ role: "user", content: "hi" }],
    tools: [],
    iteration: 1,
    onRetry: (r) => retries.push(r),
  }));
  assert.ok(err instanceof OdekError && err.code === "MODEL_UNREACHABLE", String(err));
  assert.match(err.message, /fetch refuses port 9 .*serve the model on another port/);
  assert.deepEqual(retries, []);
  assert.deepEqual(clock.sleeps, []);
});
