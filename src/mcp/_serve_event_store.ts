/**
 * A bounded in-memory event store for one 2025-11-25 HTTP session of `odek mcp serve` (private
 * to `mcp/`): with it the SDK's transport primes each SSE stream with an event id and a `retry`
 * field, and a client that lost a stream resumes it with `Last-Event-ID` (SEP-1699). It keeps
 * the newest `max` events of the session; older ones cannot be replayed.
 *
 * @module
 */
import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

/** One session's events, oldest dropped first. */
export class BoundedEventStore implements EventStore {
  readonly #max: number;
  readonly #events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  #next = 0;

  /** @param max events kept @default 1000 */
  constructor(max = 1000) {
    this.#max = max;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.#next}`;
    this.#events.set(id, { streamId, message });
    while (this.#events.size > this.#max) {
      this.#events.delete(this.#events.keys().next().value!);
    }
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.#events.get(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId);
    if (!last) return "";
    let after = false;
    for (const [id, event] of this.#events) {
      if (id === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(id, event.message);
    }
    return last.streamId;
  }
}
