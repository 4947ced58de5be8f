/**
 * The events of every run of a server, newest `limit` kept so a client that reconnects to the
 * stream of all runs (`GET /api/events` with `Last-Event-ID`) gets what it missed.
 *
 * @module
 */
import { EventHub } from "../runtime/event_hub.ts";
import type { EventSubscription, RuntimeEvent } from "../runtime/event_subscription.ts";

/** Events of all runs kept for replay. */
export const SERVE_EVENT_HISTORY = 10_000;

/**
 * A replaying fan-out of every run's events.
 *
 * @example Resume after the first event
 * ```ts
 * import { ServeEventRing } from "./serve_event_ring.ts";
 * const ring = new ServeEventRing();
 * const event = (seq: number) => ({
 *   schema: "odek.event/v1" as const, type: "session_saved" as const, run_id: "r",
 *   timestamp: "2026-01-01T00:00:00.000Z", data: { message_count: seq }, seq, id: `r:${seq}`,
 * });
 * ring.push(event(1));
 * ring.push(event(2));
 * const { subscription, resumed } = ring.subscribe("r:1");
 * ring.end();
 * const ids = [];
 * for await (const e of subscription) ids.push(e.id);
 * if (!resumed || ids.join() !== "r:2") throw new Error(ids.join());
 * ```
 */
export class ServeEventRing {
  readonly #history: RuntimeEvent[] = [];
  readonly #hub = new EventHub();
  readonly #limit: number;

  /** @param limit events kept for replay (default {@linkcode SERVE_EVENT_HISTORY}) */
  constructor(limit = SERVE_EVENT_HISTORY) {
    this.#limit = limit;
  }

  /** Keep and deliver an event. */
  push(event: RuntimeEvent): void {
    this.#history.push(event);
    if (this.#history.length > this.#limit) {
      this.#history.splice(0, this.#history.length - this.#limit);
    }
    this.#hub.publish(event);
  }

  /**
   * Follow every run from now on; with `afterId` (`<run>:<seq>`), first the kept events after it.
   *
   * @returns the stream, and whether `afterId` was found (false: what came after it is no longer
   *   kept; the client should reload what it shows)
   */
  subscribe(afterId?: string): { subscription: EventSubscription; resumed: boolean } {
    const subscription = this.#hub.subscribe({ bufferSize: 8192 });
    if (afterId === undefined) return { subscription, resumed: true };
    const at = this.#history.findIndex((event) => event.id === afterId);
    if (at < 0) return { subscription, resumed: false };
    for (const event of this.#history.slice(at + 1)) subscription.push(event);
    return { subscription, resumed: true };
  }

  /** Streams following the ring now. */
  get size(): number {
    return this.#hub.size;
  }

  /** End every stream. */
  end(): void {
    this.#hub.end();
  }
}
