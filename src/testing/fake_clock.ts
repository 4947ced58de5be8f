/**
 * A {@linkcode Clock} that never waits, for tests of retry timing.
 *
 * @module
 */
import type { Clock } from "../llm/clock.ts";

/** Options for {@linkcode FakeClock}. */
export interface FakeClockOptions {
  /** The starting time, Unix ms. @default Date.UTC(2026, 0, 1) */
  startMs?: number;
  /** The jitter draws, used in turn (the last one repeats). @default [0.5] (no jitter) */
  random?: number[];
}

/**
 * Records every wait and advances its own time by it at once; `sleep` still rejects with the
 * signal's reason when the signal has aborted, so cancellation can be tested.
 *
 * @example Waits are recorded, not slept
 * ```ts
 * import { FakeClock, type FakeClockOptions } from "./fake_clock.ts";
 * const options: FakeClockOptions = { startMs: 0, random: [0, 1] };
 * const clock = new FakeClock(options);
 * await clock.sleep(30_000);
 * if (clock.now() !== 30_000 || clock.sleeps[0] !== 30_000) throw new Error("bad clock");
 * if (clock.random() !== 0 || clock.random() !== 1 || clock.random() !== 1) throw new Error("bad");
 * ```
 */
export class FakeClock implements Clock {
  /** Every wait asked for, in ms, in order. */
  readonly sleeps: number[] = [];
  readonly #random: number[];
  #now: number;
  #draws = 0;

  /** @param options start time and jitter draws */
  constructor(options: FakeClockOptions = {}) {
    this.#now = options.startMs ?? Date.UTC(2026, 0, 1);
    this.#random = options.random ?? [0.5];
  }

  /** The fake time, Unix ms. */
  now(): number {
    return this.#now;
  }

  /** Records `ms`, advances the time, and resolves (rejects when `signal` has aborted). */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.sleeps.push(ms);
    this.#now += ms;
    return Promise.resolve();
  }

  /** The next jitter draw. */
  random(): number {
    const value = this.#random[Math.min(this.#draws, this.#random.length - 1)];
    this.#draws++;
    return value;
  }
}
