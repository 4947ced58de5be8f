/**
 * Collects the `data:` payloads of a server-sent-events byte stream, for recording.
 *
 * @module
 */

/**
 * Feeds bytes in, splits events on blank lines, and keeps each event's `data:` payload: parsed
 * JSON, or the raw text when it is not JSON. `[DONE]` sets {@linkcode SseCollector.done}.
 */
export class SseCollector {
  readonly #decoder = new TextDecoder();
  #buffer = "";
  /** The payloads seen so far, in order. */
  readonly chunks: unknown[] = [];
  /** Whether `data: [DONE]` was seen. */
  done = false;

  /** Adds bytes; complete events are parsed at once. */
  push(bytes: Uint8Array): void {
    this.#buffer += this.#decoder.decode(bytes, { stream: true });
    this.#drain(false);
  }

  /** Parses whatever is left at the end of the stream. */
  end(): void {
    this.#buffer += this.#decoder.decode();
    this.#drain(true);
  }

  #drain(atEnd: boolean): void {
    const events = this.#buffer.split(/\r\n\r\n|\n\n|\r\r/);
    this.#buffer = atEnd ? "" : events.pop() ?? "";
    for (const event of events) this.#event(event);
  }

  #event(event: string): void {
    const data = event.split(/\r\n|\n|\r/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
    if (data.length === 0 || this.done) return;
    const payload = data.join("\n");
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
