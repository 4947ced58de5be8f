import assert from "node:assert/strict";
import {
  backoffMs,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  type ModelFailure,
} from "../../src/llm/retry_policy.ts";

const POLICY = DEFAULT_RETRY_POLICY;
const at = (attempt: number, quickRetriesUsed = 0) => ({ attempt, quickRetriesUsed });

Deno.test("backoffMs() doubles from 1 s and stops at 30 s", () => {
  const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, POLICY, 0.5));
  assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
});

Deno.test("backoffMs() jitter stays within ±25 % of the plain wait", () => {
  for (let attempt = 1; attempt <= 7; attempt++) {
    const plain = backoffMs(attempt, POLICY, 0.5);
    assert.equal(backoffMs(attempt, POLICY, 0), Math.round(plain * 0.75));
    const top = backoffMs(attempt, POLICY, 0.999999);
    assert.ok(top <= plain * 1.25 && top > plain * 1.2499, `${attempt}: ${top}`);
    for (let i = 0; i < 50; i++) {
      const wait = backoffMs(attempt, POLICY, Math.random());
      assert.ok(wait >= plain * 0.75 && wait <= plain * 1.25, `${attempt}: ${wait}`);
    }
  }
});

Deno.test("backoffMs() follows a configured base", () => {
  const options = { baseMs: 10, maxMs: 30_000 };
  assert.deepEqual([1, 2, 3].map((n) => backoffMs(n, options, 0.5)), [10, 20, 40]);
});

Deno.test("decideRetry() retries exactly the listed statuses, up to 8 attempts", async (t) => {
  for (const status of [408, 429, 500, 502, 503, 504, 529]) {
    await t.step(`HTTP ${status}`, () => {
      const failure: ModelFailure = { type: "http", status };
      for (let attempt = 1; attempt < 8; attempt++) {
        assert.deepEqual(decideRetry(failure, at(attempt), POLICY, 0.5), {
          type: "retry",
          waitMs: backoffMs(attempt, POLICY, 0.5),
        });
      }
      assert.deepEqual(decideRetry(failure, at(8), POLICY, 0.5), {
        type: "give_up",
        why: "exhausted",
      });
    });
  }
  for (const status of [400, 401, 402, 403, 404, 422, 501]) {
    await t.step(`HTTP ${status} is not retried`, () => {
      const decision = decideRetry({ type: "http", status }, at(1), POLICY, 0.5);
      assert.deepEqual(decision, { type: "give_up", why: "not_retryable" });
    });
  }
});

Deno.test("decideRetry() honours Retry-After up to the 120 s cap and fails fast beyond it", () => {
  const asked = (ms: number) => ({ type: "http" as const, status: 429, retryAfterMs: ms });
  assert.deepEqual(decideRetry(asked(7000), at(1), POLICY, 0.5), { type: "retry", waitMs: 7000 });
  assert.deepEqual(decideRetry(asked(120_000), at(3), POLICY, 0.9), {
    type: "retry",
    waitMs: 120_000,
  });
  assert.deepEqual(decideRetry(asked(120_001), at(1), POLICY, 0.5), {
    type: "give_up",
    why: "wait_too_long",
    waitMs: 120_001,
  });
  const capped = { ...POLICY, retryAfterCapMs: 5000 };
  assert.equal(decideRetry(asked(6000), at(1), capped, 0.5).type, "give_up");
});

Deno.test("decideRetry() fails fast on an exhausted quota unless the provider names a short wait", () => {
  const quota: ModelFailure = { type: "http", status: 429, quotaExhausted: true };
  assert.deepEqual(decideRetry(quota, at(1), POLICY, 0.5), { type: "give_up", why: "quota" });
  assert.deepEqual(decideRetry({ ...quota, retryAfterMs: 13_500 }, at(1), POLICY, 0.5), {
    type: "retry",
    waitMs: 13_500,
  });
});

Deno.test("decideRetry() gives a refused connection or DNS failure two quick retries", () => {
  for (const reason of ["refused", "dns"] as const) {
    const failure: ModelFailure = { type: "unreachable", reason };
    assert.deepEqual(decideRetry(failure, at(1, 0), POLICY, 0.5), { type: "retry", waitMs: 250 });
    assert.deepEqual(decideRetry(failure, at(2, 1), POLICY, 0.5), { type: "retry", waitMs: 500 });
    assert.deepEqual(decideRetry(failure, at(3, 2), POLICY, 0.5), {
      type: "give_up",
      why: "exhausted",
    });
  }
});

Deno.test("decideRetry() backs off transient failures and never retries fatal ones", () => {
  for (
    const reason of [
      "reset",
      "connect_timeout",
      "stream_idle",
      "malformed",
      "empty_choices",
      "cut",
    ] as const
  ) {
    const failure: ModelFailure = { type: "transient", reason };
    assert.deepEqual(decideRetry(failure, at(2), POLICY, 0), { type: "retry", waitMs: 1500 });
    assert.equal(decideRetry(failure, at(8), POLICY, 0.5).type, "give_up");
  }
  const fatal: ModelFailure = { type: "fatal", reason: "request_timeout" };
  assert.deepEqual(decideRetry(fatal, at(1), POLICY, 0.5), {
    type: "give_up",
    why: "not_retryable",
  });
});

Deno.test("decideRetry() with maxAttempts 1 never retries", () => {
  const once = { ...POLICY, maxAttempts: 1 };
  assert.equal(decideRetry({ type: "http", status: 503 }, at(1), once, 0.5).type, "give_up");
  assert.equal(decideRetry({ type: "transient", reason: "cut" }, at(1), once, 0.5).type, "give_up");
  assert.equal(
    decideRetry({ type: "unreachable", reason: "refused" }, at(1), once, 0.5).type,
    "give_up",
  );
});

Deno.test("decideRetry() fails fast on a used-up quota at any status, keeping a named reset", () => {
  const start = { attempt: 1, quickRetriesUsed: 0 };
  assert.deepEqual(
    decideRetry({ type: "http", status: 402, quotaExhausted: true }, start, POLICY, 0.5),
    { type: "give_up", why: "quota" },
  );
  assert.deepEqual(
    decideRetry(
      { type: "http", status: 429, quotaExhausted: true, retryAfterMs: 43_200_000 },
      start,
      POLICY,
      0.5,
    ),
    { type: "give_up", why: "quota", waitMs: 43_200_000 },
  );
  assert.deepEqual(
    decideRetry(
      { type: "http", status: 400, quotaExhausted: true, retryAfterMs: 5000 },
      start,
      POLICY,
      0.5,
    ),
    { type: "give_up", why: "quota", waitMs: 5000 },
    "a short wait helps only on a retryable status",
  );
});
