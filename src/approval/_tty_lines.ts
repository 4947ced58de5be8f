/**
 * Line-oriented reading and writing on an open terminal device (private to `approval/`).
 *
 * @module
 */

/** Something prompts can be written to, e.g. `Deno.stderr`. */
export interface PromptWriter {
  /** Write some of `p`, returning how many bytes were written. */
  write(p: Uint8Array): Promise<number>;
}

/**
 * What a question is asked through: prompts written, lines read, and — where the terminal can —
 * single keys (an interactive session's raw keyboard).
 */
export interface PromptLines {
  /** Write all of `text`. */
  write(text: string): Promise<void>;
  /** The next line without its end, or `null` at end of input. */
  readLine(): Promise<string | null>;
  /**
   * One key press among `choices` (lower-case letters), echoed; others are ignored. `null`: the
   * input ended. Absent where the terminal reads whole lines.
   */
  readKey?(choices: string): Promise<string | null>;
}

/**
 * A terminal owned by someone else (the interactive session): each question opens it for the
 * time it is asked, `signal` aborting it, and closes it after.
 *
 * @example A terminal that always answers "y"
 * ```ts
 * import type { OperatorTerminal } from "./_tty_lines.ts";
 * const terminal: OperatorTerminal = {
 *   open: () => ({ write: async () => {}, readLine: async () => "y", close() {} }),
 * };
 * const lines = terminal.open();
 * if (await lines.readLine() !== "y") throw new Error("answer");
 * ```
 */
export interface OperatorTerminal {
  /** Start a question. @throws `signal.reason` from reads once `signal` aborts */
  open(signal?: AbortSignal): PromptLines & { close(): void };
}

/** Reads lines from an open terminal file and writes prompts to a writer. */
export class TtyLines implements PromptLines {
  readonly #file: Deno.FsFile;
  readonly #out: PromptWriter;
  readonly #decoder = new TextDecoder();
  readonly #encoder = new TextEncoder();
  #buffer = "";
  #eof = false;

  /**
   * @param file the terminal, opened for reading
   * @param out where prompts go
   */
  constructor(file: Deno.FsFile, out: PromptWriter) {
    this.#file = file;
    this.#out = out;
  }

  /** Write all of `text`. */
  async write(text: string): Promise<void> {
    const bytes = this.#encoder.encode(text);
    let done = 0;
    while (done < bytes.length) done += await this.#out.write(bytes.subarray(done));
  }

  /**
   * The next line without its end (`\r` dropped too), or `null` at end of input. A partial last
   * line before end of input is returned as a line.
   */
  async readLine(): Promise<string | null> {
    const chunk = new Uint8Array(4096);
    while (true) {
      const end = this.#buffer.indexOf("\n");
      if (end >= 0) {
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        return line.replace(/\r$/, "");
      }
      if (this.#eof) {
        if (this.#buffer === "") return null;
        const line = this.#buffer;
        this.#buffer = "";
        return line;
      }
      const n = await this.#file.read(chunk);
      if (n === null || n === 0) {
        this.#eof = true;
        this.#buffer += this.#decoder.decode();
      } else {
        this.#buffer += this.#decoder.decode(chunk.subarray(0, n), { stream: true });
      }
    }
  }
}

/**
 * Open the terminal at `path` for reading (or open the {@linkcode OperatorTerminal} given
 * instead) and run `body` with it: the terminal is closed when
 * `body` ends or `signal` aborts (then the signal's reason is thrown). When the terminal cannot be
 * opened, `unavailable` gets the reason (`cannot open PATH: …`) and its value is returned.
 */
export async function withTerminal<T>(
  path: string | OperatorTerminal,
  out: PromptWriter,
  signal: AbortSignal | undefined,
  unavailable: (why: string) => T,
  body: (tty: PromptLines) => Promise<T>,
): Promise<T> {
  if (typeof path !== "string") {
    const lines = path.open(signal);
    try {
      return await body(lines);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    } finally {
      lines.close();
    }
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    return unavailable(
      `cannot open ${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let closed = false;
  const close = () => {
    if (!closed) file.close();
    closed = true;
  };
  signal?.addEventListener("abort", close, { once: true });
  try {
    return await body(new TtyLines(file, out));
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  } finally {
    signal?.removeEventListener("abort", close);
    close();
  }
}
