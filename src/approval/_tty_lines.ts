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

/** Reads lines from an open terminal file and writes prompts to a writer. */
export class TtyLines {
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
 * Open the terminal at `path` for reading and run `body` with it: the terminal is closed when
 * `body` ends or `signal` aborts (then the signal's reason is thrown). When the terminal cannot be
 * opened, `unavailable` gets the reason (`cannot open PATH: …`) and its value is returned.
 */
export async function withTerminal<T>(
  path: string,
  out: PromptWriter,
  signal: AbortSignal | undefined,
  unavailable: (why: string) => T,
  body: (tty: TtyLines) => Promise<T>,
): Promise<T> {
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
