/**
 * The time seam of the model client: the wall clock, abortable waits and the jitter source, so
 * retry tests run without waiting.
 *
 * @module
 */

/**
 * What the retry loop needs from time.
 *
 * @example A clock that never waits
 * ```ts
 * import type { Clock } from "./clock.ts";
 * let now = 0;
 * const instant: Clock = {
 *   now: () => now,
 *   sleep: (ms) => {
 *     now += ms;
 *     return Promise.resolve();
 *   },
 *   random: () => 0.5,
 * };
 * await instant.sleep(1500);
 * if (instant.now() !== 1500) throw new Error("time");
 * ```
 */
export interface Clock {
  /** Milliseconds since the Unix epoch (used against `Retry-After` dates). */
  now(): number;
  /**
   * Resolves after `ms` milliseconds; rejects with `signal.reason` as soon as `signal` aborts
   * (at once when it already has).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A uniform number in [0, 1), for jitter. */
  random(): number;
}

/**
 * The real clock: `Date.now()`, `setTimeout`, and `crypto.getRandomValues` for jitter (odek-go
 * §3.3 draws its jitter from crypto/rand too, so many clients never retry in lockstep).
 *
 * @example Wait, and abort a wait
 * ```ts
 * import { systemClock } from "./clock.ts";
 * await systemClock.sleep(1);
 * const controller = new AbortController();
 * const waiting = systemClock.sleep(60_000, controller.signal);
 * controller.abort();
 * const aborted = await waiting.then(() => false, () => true);
 * if (!aborted) throw new Error("the wait was not cancelled");
 * ```
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, Math.max(0, ms));
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
  random(): number {
    return crypto.getRandomValues(new Uint32Array(1))[0] / 2 ** 32;
  },
});
