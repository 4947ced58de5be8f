import assert from "node:assert/strict";
import {
  messageRetryHintMs,
  parseResetValue,
  parseRetryAfter,
  retryAfterMs,
} from "../../src/llm/_retry_after.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

Deno.test("parseRetryAfter() reads delay-seconds and HTTP dates", () => {
  assert.equal(parseRetryAfter("7", NOW), 7000);
  assert.equal(parseRetryAfter(" 0.5 ", NOW), 500);
  assert.equal(parseRetryAfter("Mon, 30 Nov 2026 12:01:30 GMT", NOW), 90_000);
  assert.equal(parseRetryAfter("Mon, 30 Nov 2026 11:00:00 GMT", NOW), 0, "past dates mean now");
  for (const bad of ["", "-5", "soon", "1e3", "2026-11-30T12:01:30Z"]) {
    assert.equal(parseRetryAfter(bad, NOW), undefined, bad);
  }
});

Deno.test("parseResetValue() reads durations, seconds, timestamps and dates", () => {
  assert.equal(parseResetValue("6m0s", NOW), 360_000);
  assert.equal(parseResetValue("1.5s", NOW), 1500);
  assert.equal(parseResetValue("20ms", NOW), 20);
  assert.equal(parseResetValue("2h", NOW), 7_200_000);
  assert.equal(parseResetValue("30", NOW), 30_000);
  assert.equal(parseResetValue(String(NOW / 1000 + 3600), NOW), 3_600_000);
  assert.equal(parseResetValue("2026-11-30T15:00:00Z", NOW), 3 * 3_600_000);
  assert.equal(parseResetValue("later", NOW), undefined);
});

Deno.test("retryAfterMs() prefers retry-after-ms, then Retry-After, then exhausted rate limits", () => {
  assert.equal(
    retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), NOW),
    250,
  );
  assert.equal(retryAfterMs(new Headers({ "retry-after": "9" }), NOW), 9000);
  const limits = new Headers({
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "3h0m0s",
    "x-ratelimit-remaining-tokens": "5000",
    "x-ratelimit-reset-tokens": "9h",
  });
  assert.equal(retryAfterMs(limits, NOW), 3 * 3_600_000, "only the exhausted limit counts");
  assert.equal(retryAfterMs(new Headers({ "x-ratelimit-reset-tokens": "6m0s" }), NOW), undefined);
  assert.equal(retryAfterMs(new Headers({ "retry-after": "0" }), NOW), undefined);
  assert.equal(retryAfterMs(new Headers(), NOW), undefined);
});

Deno.test("messageRetryHintMs() reads the wait a provider names in its message", () => {
  assert.equal(messageRetryHintMs("Rate limit reached ... Please try again in 6ms."), 6);
  assert.equal(messageRetryHintMs("Please try again in 1m30s. Visit ..."), 90_000);
  assert.equal(messageRetryHintMs("Quota exceeded. Please retry in 13.5s."), 13_500);
  assert.equal(messageRetryHintMs("You exceeded your current quota"), undefined);
});

Deno.test("messageRetryHintMs() reads spoken waits and reset moments (issue 14, case 4)", () => {
  const now = Date.UTC(2026, 0, 1);
  const cases: [string, number | undefined][] = [
    ["You exceeded your daily quota. Your quota will reset in 12 hours.", 12 * 3_600_000],
    ["Rate limited. Please retry after 2 minutes and 30 seconds.", 150_000],
    ["Limit reached; try again in an hour", 3_600_000],
    ["Please try again in 1.5 s.", 1500],
    ["The limit will be lifted in 3 days.", 3 * 86_400_000],
    ["Your quota resets at 2026-01-01T06:00:00Z.", 6 * 3_600_000],
    ["Quota resets at 2025-12-31T00:00:00Z.", undefined],
    ["Try again in a few minutes.", undefined],
    ["Your quota resets at midnight.", undefined],
  ];
  for (const [message, expected] of cases) {
    assert.equal(messageRetryHintMs(message, now), expected, message);
  }
  assert.equal(messageRetryHintMs("Your quota resets at 2026-01-01T06:00:00Z."), undefined);
});
