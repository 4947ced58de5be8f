/**
 * A bounded buffer that keeps the newest bytes of a stream (private to `broker/`).
 *
 * @module
 */

/** Keeps the last `capacity` bytes written and counts every byte. */
export class OutputRing {
  readonly #capacity: number;
  #chunks: Uint8Array[] = [];
  #held = 0;
  #total = 0;

  /** @param capacity bytes kept, at least 1 */
  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** Every byte ever written. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Append `chunk`, dropping the oldest bytes beyond the capacity. */
  write(chunk: Uint8Array): void {
    this.#total += chunk.length;
    const piece = chunk.length > this.#capacity
      ? chunk.slice(chunk.length - this.#capacity)
      : chunk.slice();
    this.#chunks.push(piece);
    this.#held += piece.length;
    while (this.#held - this.#chunks[0].length >= this.#capacity) {
      this.#held -= this.#chunks.shift()!.length;
    }
    if (this.#held > this.#capacity) {
      const over = this.#held - this.#capacity;
      this.#chunks[0] = this.#chunks[0].slice(over);
      this.#held -= over;
    }
  }

  /**
   * The newest `maxBytes` bytes as text (a cut UTF-8 sequence at the start is dropped), and how
   * many earlier bytes are not shown.
   */
  tail(maxBytes: number): { text: string; omittedBytes: number } {
    const all = new Uint8Array(this.#held);
    let at = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, at);
      at += chunk.length;
    }
    let start = Math.max(0, all.length - maxBytes);
    while (start < all.length && (all[start] & 0xc0) === 0x80) start++;
    return {
      text: new TextDecoder().decode(all.subarray(start)),
      omittedBytes: this.#total - (all.length - start),
    };
  }
}
