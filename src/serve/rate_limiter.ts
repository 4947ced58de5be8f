/**
 * A sliding-window limit per client: at most `limit` events in any `windowMs`.
 *
 * @module
 */

/**
 * Counts events per key over a sliding window.
 *
 * @example Two a minute
 * ```ts
 * import { RateLimiter } from "./rate_limiter.ts";
 * let now = 0;
 * const limiter = new RateLimiter(2, 60_000, () => now);
 * if (!limiter.take("a") || !limiter.take("a") || limiter.take("a")) throw new Error("limit");
 * now = 60_001;
 * if (!limiter.take("a")) throw new Error("window");
 * ```
 */
export class RateLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #hits = new Map<string, number[]>();

  /**
   * @param limit events allowed per window
   * @param windowMs the window, in ms
   * @param now the clock, in ms @default Date.now
   */
  constructor(limit: number, windowMs: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Count one event for `key`. @returns false (and counts nothing) when over the limit */
  take(key: string): boolean {
    const now = this.#now();
    const hits = (this.#hits.get(key) ?? []).filter((at) => now - at < this.#windowMs);
    if (hits.length >= this.#limit) {
      this.#hits.set(key, hits);
      return false;
    }
    hits.push(now);
    this.#hits.set(key, hits);
    if (this.#hits.size > 10_000) this.#prune(now);
    return true;
  }

  /** Seconds until `key` may try again. */
  retryAfterSeconds(key: string): number {
    const oldest = this.#hits.get(key)?.[0];
    if (oldest === undefined) return 0;
    return Math.max(1, Math.ceil((oldest + this.#windowMs - this.#now()) / 1000));
  }

  #prune(now: number): void {
    for (const [key, hits] of this.#hits) {
      if (hits.every((at) => now - at >= this.#windowMs)) this.#hits.delete(key);
    }
  }
}
