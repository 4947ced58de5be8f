/**
 * Fans events out to subscribers, each with its own bounded buffer (design §8.2).
 *
 * @module
 */
import { EventSubscription, type RuntimeEvent } from "./event_subscription.ts";

/**
 * Options of one subscription.
 *
 * @example A small buffer for a slow consumer
 * ```ts
 * import type { SubscribeOptions } from "./event_hub.ts";
 * const options: SubscribeOptions = { bufferSize: 256 };
 * if (options.bufferSize !== 256) throw new Error("size");
 * ```
 */
export interface SubscribeOptions {
  /** Events held for this subscriber before the oldest is dropped. @default 4096 */
  bufferSize?: number;
}

/**
 * Delivers every published event to every live subscriber without waiting for any of them; the
 * runtime's stream of all runs ({@linkcode Runtime.events}) is one.
 *
 * @example
 * ```ts
 * import { EventHub } from "./event_hub.ts";
 * const hub = new EventHub();
 * const sub = hub.subscribe();
 * hub.end();
 * for await (const _ of sub) throw new Error("no events were published");
 * ```
 */
export class EventHub {
  readonly #subscribers = new Set<EventSubscription>();
  #ended = false;

  /**
   * A new subscriber, from the next published event on (already ended: an empty stream).
   *
   * @throws {RangeError} for a bad `bufferSize`
   */
  subscribe(options: SubscribeOptions = {}): EventSubscription {
    const subscription = new EventSubscription({
      ...options,
      onClose: () => this.#subscribers.delete(subscription),
    });
    if (this.#ended) subscription.end();
    else this.#subscribers.add(subscription);
    return subscription;
  }

  /** Deliver `event` to every subscriber. Never waits, never throws. */
  publish(event: RuntimeEvent): void {
    for (const subscriber of this.#subscribers) subscriber.push(event);
  }

  /** Subscribers currently listening. */
  get size(): number {
    return this.#subscribers.size;
  }

  /** End every stream (each drains what it holds); later subscribers get an empty stream. */
  end(): void {
    this.#ended = true;
    for (const subscriber of this.#subscribers) subscriber.end();
  }
}
