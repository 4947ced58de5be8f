/**
 * Collects the `data:` payloads of a server-sent-events byte stream, for recording. The framing is
 * `eventsource-parser`'s, as for the model client's own reading (`_chat_transport.ts`).
 *
 * @module
 */
import { createParser, type EventSourceParser } from "eventsource-parser";

/**
 * Feeds bytes in and keeps each event's `data:` payload: parsed JSON, or the raw text when it is
 * not JSON. `[DONE]` sets {@linkcode SseCollector.done}; nothing after it is kept.
 */
export class SseCollector {
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser = createParser({
    onEvent: (event) => this.#event(event.data),
  });
  /** The payloads seen so far, in order. */
  readonly chunks: unknown[] = [];
  /** Whether `data: [DONE]` was seen. */
  done = false;

  /** Adds bytes; complete events are parsed at once. */
  push(bytes: Uint8Array): void {
    this.#parser.feed(this.#decoder.decode(bytes, { stream: true }));
  }

  /** Parses whatever is left at the end of the stream, an unfinished last event included. */
  end(): void {
    this.#parser.feed(this.#decoder.decode());
    this.#parser.reset({ consume: true });
  }

  #event(payload: string): void {
    if (this.done) return;
    if (payload === "[DONE]") {
      this.done = true;
      return;
    }
    try {
      this.chunks.push(JSON.parse(payload));
    } catch {
      this.chunks.push(payload);
    }
  }
}
