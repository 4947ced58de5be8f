/**
 * The one reader of the interactive session's keyboard: standard input in raw mode, decoded
 * into keys ({@linkcode decodeKeys}), handed to whoever waits — the line editor, the run's
 * interrupt watcher, an approval prompt.
 *
 * @module
 */
import { decodeKeys, type Key } from "./decode_keys.ts";

/** Where keys come from (the real terminal, or a test's script). */
export interface KeySource {
  /**
   * The next key, or `null` once input has ended.
   * @throws `signal.reason` when `signal` aborts first (the key stays for the next reader)
   */
  next(signal?: AbortSignal): Promise<Key | null>;
  /** Drop keys typed ahead (before a question whose answer must be typed after it is shown). */
  drain(): void;
}

/** The terminal input {@linkcode TerminalKeys} reads. */
export interface RawInput {
  read(p: Uint8Array): Promise<number | null>;
  setRaw(mode: boolean): void;
}

/** Options for {@linkcode TerminalKeys}. */
export interface TerminalKeysOptions {
  /** How long a lone Esc waits for a following byte before it counts, in ms. @default 100 */
  escapeMs?: number;
}

/**
 * Reads the terminal in raw mode until input ends or it is disposed (raw mode is turned off
 * again then).
 *
 * @example Keys from a scripted input
 * ```ts
 * import { TerminalKeys } from "./terminal_keys.ts";
 * const chunks = [new TextEncoder().encode("/help\r")];
 * using keys = new TerminalKeys({
 *   read: (p) => Promise.resolve(chunks.length ? (p.set(chunks[0]), chunks.shift()!.length) : null),
 *   setRaw() {},
 * });
 * const first = await keys.next();
 * const second = await keys.next();
 * if (first?.type !== "text" || second?.type !== "key" || await keys.next() !== null) {
 *   throw new Error("keys");
 * }
 * ```
 */
export class TerminalKeys implements KeySource, Disposable {
  readonly #input: RawInput;
  readonly #escapeMs: number;
  readonly #queue: Key[] = [];
  readonly #waiters = new Set<() => void>();
  #rest = "";
  #ended = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;

  /**
   * Turn raw mode on and start reading.
   *
   * @param input the terminal (standard input)
   * @param options the lone-Esc wait
   */
  constructor(input: RawInput, options: TerminalKeysOptions = {}) {
    this.#input = input;
    this.#escapeMs = options.escapeMs ?? 100;
    input.setRaw(true);
    void this.#pump();
  }

  /** See {@linkcode KeySource.next}. */
  async next(signal?: AbortSignal): Promise<Key | null> {
    while (true) {
      signal?.throwIfAborted();
      const key = this.#queue.shift();
      if (key) return key;
      if (this.#ended) return null;
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener("abort", stop);
          this.#waiters.delete(wake);
          resolve();
        };
        const stop = () => {
          this.#waiters.delete(wake);
          reject(signal!.reason);
        };
        this.#waiters.add(wake);
        signal?.addEventListener("abort", stop, { once: true });
      });
    }
  }

  /** How many keys wait to be read (typed ahead). */
  get pending(): number {
    return this.#queue.length;
  }

  /** See {@linkcode KeySource.drain}. */
  drain(): void {
    this.#queue.length = 0;
  }

  /** Stop listening and turn raw mode off. */
  [Symbol.dispose](): void {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#timer);
    try {
      this.#input.setRaw(false);
    } catch {
      // The terminal is gone already.
    }
    this.#end();
  }

  async #pump(): Promise<void> {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(4096);
    try {
      while (!this.#disposed) {
        const n = await this.#input.read(buffer);
        if (n === null) break;
        clearTimeout(this.#timer);
        this.#feed(this.#rest + decoder.decode(buffer.subarray(0, n), { stream: true }), false);
        if (this.#rest !== "") {
          this.#timer = setTimeout(() => this.#feed(this.#rest, true), this.#escapeMs);
        }
      }
    } catch {
      // A read error ends input like end of file.
    }
    this.#end();
  }

  #feed(input: string, final: boolean): void {
    const { keys, rest } = decodeKeys(input, final);
    this.#rest = rest;
    this.#queue.push(...keys);
    if (keys.length > 0) this.#wake();
  }

  #end(): void {
    this.#ended = true;
    this.#wake();
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
