/**
 * One consumer's view of run events: a bounded buffer the producer never waits on (design §8.2).
 *
 * @module
 */
import { makeRunEvent } from "../loop/make_run_event.ts";
import type { RunEvent } from "../loop/run_event.ts";

/**
 * A run event as the runtime delivers it: numbered per run, with its id `<run_id>:<seq>`.
 *
 * @example Print each event by its id
 * ```ts
 * import type { RuntimeEvent } from "./event_subscription.ts";
 * const event: RuntimeEvent = {
 *   schema: "odek.event/v1", type: "session_saved", run_id: "r1", seq: 3, id: "r1:3",
 *   timestamp: "2025-01-01T00:00:00.000Z", data: { message_count: 4 },
 * };
 * const line = `${event.id} ${event.type}`;
 * if (line !== "r1:3 session_saved") throw new Error(line);
 * ```
 */
export type RuntimeEvent = RunEvent & { seq: number; id: string };

/** Events one subscriber holds before the oldest is dropped. */
export const DEFAULT_EVENT_BUFFER = 4096;

/**
 * Events of one or more runs for one consumer, in order, as an async iterator. The producer
 * {@linkcode EventSubscription.push}es without ever waiting; when `bufferSize` events are waiting
 * the oldest is dropped, and the consumer gets an `events_dropped {from, to}` marker (one per run,
 * merged while the drops are contiguous) in its place. The iterator ends after
 * {@linkcode EventSubscription.end} once the buffer is drained, or at once when the consumer
 * stops (`break`, `return()`, {@linkcode EventSubscription.close}).
 *
 * @example Drop the oldest of three events with a buffer of two
 * ```ts
 * import { EventSubscription, type RuntimeEvent } from "./event_subscription.ts";
 * const sub = new EventSubscription({ bufferSize: 2 });
 * for (const seq of [1, 2, 3]) {
 *   sub.push({ schema: "odek.event/v1", type: "session_saved", run_id: "r", seq, id: `r:${seq}`,
 *     timestamp: "t", data: { message_count: seq } } as RuntimeEvent);
 * }
 * sub.end();
 * const seen = [];
 * for await (const event of sub) seen.push(`${event.type}:${event.seq}`);
 * if (seen.join() !== "events_dropped:1,session_saved:2,session_saved:3") throw new Error(seen.join());
 * ```
 */
export class EventSubscription implements AsyncIterableIterator<RuntimeEvent>, Disposable {
  readonly #size: number;
  readonly #onClose: (() => void) | undefined;
  /** Markers first (one per run at most), then events, oldest first. */
  readonly #buffer: RuntimeEvent[] = [];
  #events = 0;
  #waiter: ((result: IteratorResult<RuntimeEvent>) => void) | undefined;
  #ended = false;
  #closed = false;

  /**
   * Made by `run.subscribe()`, `run.events` and `runtime.events()`.
   *
   * @param options `bufferSize` (events waiting before the oldest is dropped; default
   *   {@linkcode DEFAULT_EVENT_BUFFER}) and `onClose` (called once when the consumer stops)
   * @throws {RangeError} when `bufferSize` is not a positive integer
   * @internal
   */
  constructor(options: { bufferSize?: number; onClose?: () => void } = {}) {
    const size = options.bufferSize ?? DEFAULT_EVENT_BUFFER;
    if (!Number.isInteger(size) || size < 1) {
      throw new RangeError(`bufferSize must be a positive integer, got ${size}`);
    }
    this.#size = size;
    this.#onClose = options.onClose;
  }

  /** Whether the consumer stopped or the stream ended and was drained. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Deliver one event (never waits, never throws). Ignored after the stream ended.
   * @internal the producer's side
   */
  push(event: RuntimeEvent): void {
    if (this.#ended || this.#closed) return;
    if (this.#waiter) {
      const resolve = this.#waiter;
      this.#waiter = undefined;
      resolve({ value: event, done: false });
      return;
    }
    this.#buffer.push(event);
    this.#events++;
    if (this.#events > this.#size) this.#dropOldest();
  }

  /**
   * Stand in for events `from`…`to` of `runId` that will never be delivered.
   * @internal the producer's side
   */
  markDropped(runId: string, sessionId: string | undefined, from: number, to: number): void {
    if (this.#ended || this.#closed || to < from) return;
    const marker = this.#marker(runId, sessionId, from, to);
    if (this.#waiter) {
      const resolve = this.#waiter;
      this.#waiter = undefined;
      resolve({ value: marker, done: false });
      return;
    }
    this.#buffer.splice(this.#markerCount(), 0, marker);
  }

  /**
   * No more events: the iterator ends once the buffer is drained.
   * @internal the producer's side
   */
  end(): void {
    this.#ended = true;
    if (this.#waiter && this.#buffer.length === 0) {
      const resolve = this.#waiter;
      this.#waiter = undefined;
      this.#finish();
      resolve({ value: undefined, done: true });
    }
  }

  /** Stop consuming now: buffered events are discarded. Idempotent. */
  close(): void {
    this.#buffer.length = 0;
    this.#events = 0;
    this.#finish();
    if (this.#waiter) {
      const resolve = this.#waiter;
      this.#waiter = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  /** The next event, or `done` when the stream ended (or the consumer stopped). */
  next(): Promise<IteratorResult<RuntimeEvent>> {
    const value = this.#buffer.shift();
    if (value !== undefined) {
      if (value.type !== "events_dropped") this.#events--;
      return Promise.resolve({ value, done: false });
    }
    if (this.#ended || this.#closed) {
      this.#finish();
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  /** Stop consuming (what `break` in `for await` calls). */
  return(): Promise<IteratorResult<RuntimeEvent>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** This subscription is its own iterator. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** {@linkcode EventSubscription.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose?.();
  }

  #markerCount(): number {
    let n = 0;
    while (n < this.#buffer.length && this.#buffer[n].type === "events_dropped") n++;
    return n;
  }

  /** Drop the oldest event; extend its run's marker when the drop is contiguous with it. */
  #dropOldest(): void {
    const markers = this.#markerCount();
    const [dropped] = this.#buffer.splice(markers, 1);
    this.#events--;
    for (let i = 0; i < markers; i++) {
      const marker = this.#buffer[i] as Extract<RuntimeEvent, { type: "events_dropped" }>;
      if (marker.run_id === dropped.run_id && marker.data.to === dropped.seq - 1) {
        this.#buffer[i] = this.#marker(
          dropped.run_id,
          dropped.session_id,
          marker.data.from,
          dropped.seq,
        );
        return;
      }
    }
    this.#buffer.splice(
      markers,
      0,
      this.#marker(dropped.run_id, dropped.session_id, dropped.seq, dropped.seq),
    );
  }

  #marker(runId: string, sessionId: string | undefined, from: number, to: number): RuntimeEvent {
    const event = makeRunEvent("events_dropped", { from, to }, { runId, sessionId });
    return { ...event, seq: to, id: `${runId}:${to}` } as RuntimeEvent;
  }
}
