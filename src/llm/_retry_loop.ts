/**
 * Runs attempts of one model request under the retry policy: classify each failure, wait (an
 * abortable wait on the injected clock), tell the caller, try again, or give up with a message
 * that says what to do.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { AttemptOutcome } from "./_classify_attempt.ts";
import type { Clock } from "./clock.ts";
import type { ModelRetry } from "./model.ts";
import {
  decideRetry,
  failureReason,
  type RetryDecision,
  type RetryPolicyOptions,
} from "./retry_policy.ts";

/** Options of {@linkcode withRetries}. */
export interface RetryLoopOptions {
  policy: RetryPolicyOptions;
  clock: Clock;
  /** Aborts a wait at once (with the signal's reason). */
  signal?: AbortSignal;
  /** Told before each wait; an exception from it is ignored. */
  onRetry?: (retry: ModelRetry) => void;
}

/**
 * Calls `attempt(1)`, `attempt(2)`, … until one resolves, `classify` says to throw, or the
 * policy gives up.
 *
 * @throws what `classify` says to throw; on giving up the attempt's error, reworded for
 *   `exhausted` (how many attempts, how long), `wait_too_long` (when to retry) and `quota`
 * @throws the signal's reason when it aborts during a wait
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  classify: (err: unknown) => AttemptOutcome,
  options: RetryLoopOptions,
): Promise<T> {
  const { policy, clock } = options;
  const started = clock.now();
  let quickRetriesUsed = 0;
  for (let n = 1;; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const outcome = classify(err);
      if (outcome.type === "throw") throw outcome.error;
      const { failure } = outcome;
      const decision = decideRetry(
        failure,
        { attempt: n, quickRetriesUsed },
        policy,
        clock.random(),
      );
      if (decision.type === "give_up") {
        throw giveUpError(decision, outcome.error, n, started, clock.now(), policy);
      }
      if (failure.type === "unreachable") quickRetriesUsed++;
      try {
        options.onRetry?.({
          attempt: n + 1,
          maxAttempts: policy.maxAttempts,
          waitMs: decision.waitMs,
          reason: failureReason(failure),
          ...(failure.type === "http" ? { status: failure.status } : {}),
          message: outcome.error.message,
        });
      } catch {
        // A listener's fault must not end the run.
      }
      await clock.sleep(decision.waitMs, options.signal);
    }
  }
}

function giveUpError(
  decision: Extract<RetryDecision, { type: "give_up" }>,
  error: OdekError,
  attempts: number,
  started: number,
  now: number,
  policy: RetryPolicyOptions,
): OdekError {
  const reword = (text: string) => new OdekError(error.code, text, { cause: error.cause ?? error });
  const base = error.message.replace(/\.\s*$/, "");
  switch (decision.why) {
    case "not_retryable":
      return error;
    case "exhausted":
      return attempts === 1
        ? error
        : reword(`${base} (gave up after ${attempts} attempts over ${duration(now - started)}).`);
    case "wait_too_long": {
      const wait = decision.waitMs ?? 0;
      const at = new Date(now + wait).toISOString().replace(/\.\d+Z$/, "Z");
      return reword(
        `${base}. It asks to wait ${duration(wait)}, more than the ${
          policy.retryAfterCapMs / 1000
        } s odek waits (retry.retryAfterCapSeconds): retry after ${at}, e.g. with "odek continue".`,
      );
    }
    case "quota": {
      if (decision.waitMs === undefined) {
        return reword(
          `${base}. The account's quota or balance is used up, which waiting will not fix: check ` +
            `the provider's plan and billing, then retry, e.g. with "odek continue".`,
        );
      }
      const at = new Date(now + decision.waitMs).toISOString().replace(/\.\d+Z$/, "Z");
      return reword(
        `${base}. The account's quota or balance is used up until it resets in ` +
          `${duration(decision.waitMs)}, more than the ${
            policy.retryAfterCapMs / 1000
          } s odek waits: retry after ${at}, e.g. with "odek continue", or check the provider's ` +
          `plan and billing.`,
      );
    }
  }
}

/** `1.5 s`, `2 min 5 s`, `3 h 0 min`. */
function duration(ms: number): string {
  const s = Math.round(ms / 100) / 10;
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(s % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
