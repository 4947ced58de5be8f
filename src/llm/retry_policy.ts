/**
 * The model client's retry policy as pure functions: which failures are retried, and how long to
 * wait before the next attempt. No clock, no I/O: the caller passes the attempt number and a
 * random number, so every wait can be asserted exactly.
 *
 * Source: odek-go §3.3 as of PR #123 (8 attempts, exponential 1–30 s with ±25 % jitter, statuses
 * 408/429/500/502/503/504/529, `Retry-After` honoured up to 120 s, malformed and zero-choice
 * 200s consume attempts) and its v2.x fail-fast on an exhausted quota.
 *
 * @module
 */

/**
 * Settings of {@linkcode decideRetry}; config keys `retry.*`.
 *
 * @example Retry quickly in tests
 * ```ts
 * import { DEFAULT_RETRY_POLICY, type RetryPolicyOptions } from "./retry_policy.ts";
 * const policy: RetryPolicyOptions = { ...DEFAULT_RETRY_POLICY, baseMs: 1, maxMs: 10 };
 * if (policy.maxAttempts !== 8) throw new Error("attempts");
 * ```
 */
export interface RetryPolicyOptions {
  /** Attempts in all, the first included (1 = never retry). @default 8 */
  maxAttempts: number;
  /** Wait after the first failed attempt, in ms; doubles per attempt. @default 1000 */
  baseMs: number;
  /** Largest backoff before jitter, in ms. @default 30_000 */
  maxMs: number;
  /** Longest `Retry-After` (or rate-limit reset) honoured, in ms; a longer one fails fast. @default 120_000 */
  retryAfterCapMs: number;
  /** Retries for a refused connection or a DNS failure, each after `baseMs / 4` × n. @default 2 */
  quickRetries: number;
}

/** The defaults of {@linkcode RetryPolicyOptions}. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicyOptions> = Object.freeze({
  maxAttempts: 8,
  baseMs: 1000,
  maxMs: 30_000,
  retryAfterCapMs: 120_000,
  quickRetries: 2,
});

/** HTTP statuses worth another attempt (529: Anthropic "overloaded"). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([
  408,
  429,
  500,
  502,
  503,
  504,
  529,
]);

/** A failure that may be transient, with what it takes to decide on a retry. */
export type TransientReason =
  | "reset"
  | "connect_timeout"
  | "stream_idle"
  | "malformed"
  | "empty_choices"
  | "cut"
  | "stream_error"
  | "network";

/** What went wrong with one attempt. */
export type ModelFailure =
  /** An HTTP error status; `retryAfterMs` from the headers or the message. */
  | { type: "http"; status: number; retryAfterMs?: number; quotaExhausted?: boolean }
  /** Nobody listens at the URL, or its host does not resolve: a few quick retries only. */
  | { type: "unreachable"; reason: "refused" | "dns" }
  /** A reset, a timeout before the answer or between bytes, or a broken 200. */
  | { type: "transient"; reason: TransientReason }
  /** Never retried (e.g. the per-request cap, a TLS failure). */
  | { type: "fatal"; reason: string };

/** Where a run of attempts stands. */
export interface RetryState {
  /** Attempts made so far, the failed one included (≥ 1). */
  attempt: number;
  /** Quick retries already spent on `unreachable` failures. */
  quickRetriesUsed: number;
}

/** What to do after a failed attempt. */
export type RetryDecision =
  | { type: "retry"; waitMs: number }
  | {
    type: "give_up";
    why: "not_retryable" | "exhausted" | "wait_too_long" | "quota";
    /** For `wait_too_long` (and `quota` when a reset time is named): the wait, in ms. */
    waitMs?: number;
  };

/**
 * The exponential backoff after the `attempt`-th failed attempt: `min(maxMs, baseMs × 2^(attempt−1))`
 * scaled by a jitter factor in [0.75, 1.25).
 *
 * @param attempt 1-based number of the failed attempt
 * @param options base and cap
 * @param random uniform in [0, 1): 0 gives −25 %, 0.5 the plain value, →1 gives +25 %
 * @returns the wait in ms (a whole number)
 *
 * @example The first waits with no jitter
 * ```ts
 * import { backoffMs, DEFAULT_RETRY_POLICY } from "./retry_policy.ts";
 * const waits = [1, 2, 3, 6, 7].map((n) => backoffMs(n, DEFAULT_RETRY_POLICY, 0.5));
 * if (waits.join() !== "1000,2000,4000,30000,30000") throw new Error(waits.join());
 * ```
 */
export function backoffMs(
  attempt: number,
  options: Pick<RetryPolicyOptions, "baseMs" | "maxMs">,
  random: number,
): number {
  const plain = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(plain * (0.75 + 0.5 * random));
}

/**
 * Decides whether to try again after a failed attempt, and how long to wait first.
 *
 * - HTTP 408/429/500/502/503/504/529: retried up to `maxAttempts`, waiting what the provider asked
 *   for (`retryAfterMs`) or else the backoff. A wait beyond `retryAfterCapMs` gives up at once
 *   (`wait_too_long`). Other statuses: `not_retryable`.
 * - A used-up quota or balance (`quotaExhausted`, any status) gives up at once (`quota`, with the
 *   named reset as `waitMs`), unless a retryable status names a wait within `retryAfterCapMs`
 *   (a per-minute quota).
 * - `unreachable`: at most `quickRetries` retries after `baseMs / 4 × n`.
 * - `transient`: retried with the backoff. `fatal`: `not_retryable`.
 *
 * @param failure what went wrong
 * @param state attempts so far
 * @param options the policy
 * @param random uniform in [0, 1), for the jitter
 *
 * @example A 429 that asks for 3 hours fails fast
 * ```ts
 * import { decideRetry, DEFAULT_RETRY_POLICY } from "./retry_policy.ts";
 * const failure = { type: "http" as const, status: 429, retryAfterMs: 3 * 3_600_000 };
 * const decision = decideRetry(failure, { attempt: 1, quickRetriesUsed: 0 }, DEFAULT_RETRY_POLICY, 0.5);
 * if (decision.type !== "give_up" || decision.why !== "wait_too_long") throw new Error("retried");
 * ```
 */
export function decideRetry(
  failure: ModelFailure,
  state: RetryState,
  options: RetryPolicyOptions,
  random: number,
): RetryDecision {
  const exhausted = state.attempt >= options.maxAttempts;
  switch (failure.type) {
    case "http": {
      const asked = failure.retryAfterMs;
      const retryable = RETRYABLE_STATUSES.has(failure.status);
      if (
        failure.quotaExhausted &&
        (!retryable || asked === undefined || asked > options.retryAfterCapMs)
      ) {
        return { type: "give_up", why: "quota", ...(asked !== undefined ? { waitMs: asked } : {}) };
      }
      if (!retryable) return { type: "give_up", why: "not_retryable" };
      if (asked !== undefined && asked > options.retryAfterCapMs) {
        return { type: "give_up", why: "wait_too_long", waitMs: asked };
      }
      if (exhausted) return { type: "give_up", why: "exhausted" };
      return { type: "retry", waitMs: asked ?? backoffMs(state.attempt, options, random) };
    }
    case "unreachable":
      if (exhausted || state.quickRetriesUsed >= options.quickRetries) {
        return { type: "give_up", why: "exhausted" };
      }
      return {
        type: "retry",
        waitMs: Math.round(options.baseMs / 4) * (state.quickRetriesUsed + 1),
      };
    case "transient":
      if (exhausted) return { type: "give_up", why: "exhausted" };
      return { type: "retry", waitMs: backoffMs(state.attempt, options, random) };
    case "fatal":
      return { type: "give_up", why: "not_retryable" };
    default: {
      const unreachable: never = failure;
      throw new TypeError(`Unknown failure: ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A short name for a failure, for the `model_retry` event: `http_429`, `reset`, `stream_idle`, … */
export function failureReason(failure: ModelFailure): string {
  return failure.type === "http" ? `http_${failure.status}` : failure.reason;
}
