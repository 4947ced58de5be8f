/**
 * `failWithStartup` (src/runtime/_host_startup.ts) and a first request that never leaves: it
 * throws at once, is cancelled before the provider answered, or is retried after attempts that
 * never reached the provider. None of them starts the host's parts, and none leaves the 100 ms
 * fallback timer behind to start them later (Deno 2.9 checks for pending timers only in a test
 * that sets `sanitizeOps: true`, as these do).
 */
import assert from "node:assert/strict";
import { failWithStartup } from "../../src/runtime/_host_startup.ts";
import type { Model, ModelRequest, ModelResponse, ModelRetry } from "../../src/llm/model.ts";

const request = { messages: [], tools: [], iteration: 0 };

const ok = {
  message: { role: "assistant", content: "ok" },
  finishReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
} as ModelResponse;

function counted() {
  const starts = { count: 0 };
  const startup = () => {
    starts.count++;
    return Promise.resolve();
  };
  return { starts, startup };
}

Deno.test({
  name:
    "failWithStartup: a model whose complete() throws at once starts nothing and leaves no timer",
  sanitizeOps: true,
}, () => {
  const inner: Model = {
    complete() {
      throw new TypeError("bad request shape");
    },
  };
  const { starts, startup } = counted();
  const model = failWithStartup(inner, startup);
  assert.throws(() => model.complete(request), TypeError);
  assert.equal(starts.count, 0); // and no fallback timer is left to start them (sanitizeOps)
});

Deno.test({
  name: "failWithStartup: a request cancelled before the provider answered starts nothing",
  sanitizeOps: true,
}, async () => {
  const inner: Model = {
    complete: (r) =>
      new Promise<never>((_, reject) =>
        r.signal?.addEventListener("abort", () => reject(r.signal!.reason))
      ),
  };
  const { starts, startup } = counted();
  const model = failWithStartup(inner, startup);
  const cancel = new AbortController();
  const answer = model.complete({ ...request, signal: cancel.signal });
  cancel.abort(new Error("Ctrl-C"));
  await assert.rejects(answer, /Ctrl-C/);
  assert.equal(starts.count, 0);
});

/**
 * A model whose attempts are refused: `refused` attempts fail at once, each retry told and
 * waited for on a timer, the last answer `end`.
 */
function refusingModel(refused: number, end: "fail" | ModelResponse, waitMs: number): Model {
  return {
    async complete(r: ModelRequest) {
      for (let attempt = 1; attempt <= refused; attempt++) {
        if (attempt === refused && end === "fail") throw new Error("connection refused");
        const retry: ModelRetry = {
          attempt: attempt + 1,
          maxAttempts: refused + 1,
          waitMs,
          reason: "refused",
          message: "connection refused",
        };
        r.onRetry?.(retry);
        await new Promise((resolve) => setTimeout(resolve, waitMs));
      }
      if (end === "fail") throw new Error("connection refused");
      r.onResponse?.();
      return end;
    },
  };
}

Deno.test("failWithStartup: attempts refused for good (retried, waits longer than the fallback) start nothing", async () => {
  const { starts, startup } = counted();
  const retries: number[] = [];
  const model = failWithStartup(refusingModel(3, "fail", 150), startup);
  await assert.rejects(
    model.complete({ ...request, onRetry: (r) => retries.push(r.attempt) }),
    /connection refused/,
  );
  assert.deepEqual(retries, [2, 3], "the caller's onRetry is still told");
  assert.equal(starts.count, 0, "the parts started while a refused request waited to retry");
});

Deno.test("failWithStartup: a request accepted after refused attempts starts the parts once", async () => {
  const { starts, startup } = counted();
  const model = failWithStartup(refusingModel(2, ok, 150), startup);
  assert.equal((await model.complete(request)).message.content, "ok");
  assert.equal(starts.count, 1);
});
