/**
 * The interactive session's live status while the model works: a spinner, what is going on,
 * the elapsed time, the tokens so far and the key to interrupt, on the terminal's last line.
 *
 * @module
 */
import type { TextSink } from "./cli_io.ts";

/** Options of {@linkcode StatusLine}. */
export interface StatusLineOptions {
  /** The terminal. */
  out: TextSink;
  /** Dim the line. */
  color: boolean;
  /** Milliseconds now. @default performance.now */
  now?: () => number;
  /** Redraw every this many ms. @default 100 */
  intervalMs?: number;
  /** Terminal width, to keep the line on one row. @default 80 */
  columns?: () => number;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * A status line that other output passes around: write everything else through
 * {@linkcode StatusLine.sink}, which erases the line first (and, as the terminal is in raw mode,
 * turns `\n` into `\r\n`), and the line is drawn again under it.
 *
 * @example One frame, then text written through the sink
 * ```ts
 * import { StatusLine } from "./status_line.ts";
 * let screen = "";
 * const status = new StatusLine({ out: { write: (t) => (screen += t) }, color: false, now: () => 0 });
 * status.start("thinking");
 * status.sink({ write: (t) => (screen += t) }).write("done\n");
 * status.stop();
 * if (!screen.includes("thinking · 0.0 s · Esc to interrupt") || !screen.includes("done\r\n")) {
 *   throw new Error(JSON.stringify(screen));
 * }
 * ```
 */
export class StatusLine {
  readonly #options: StatusLineOptions;
  readonly #now: () => number;
  #label = "";
  #started = 0;
  #frame = 0;
  #tokensIn = 0;
  #tokensOut = 0;
  #shown = false;
  #active = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Output left the cursor mid-line: the status waits for the line to end. */
  #midLine = false;

  /** @param options terminal, colour, clock */
  constructor(options: StatusLineOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Show the line, counting time from now. */
  start(label: string): void {
    this.#label = label;
    this.#started = this.#now();
    this.#tokensIn = 0;
    this.#tokensOut = 0;
    this.#active = true;
    this.#draw();
    this.#timer ??= setInterval(() => this.#draw(), this.#options.intervalMs ?? 100);
  }

  /** What is going on now (`thinking`, `answering`, the running tool). */
  set label(label: string) {
    this.#label = label;
  }

  /** The tokens of the run so far (input and output). */
  tokens(input: number, output: number): void {
    this.#tokensIn = input;
    this.#tokensOut = output;
  }

  /** Hide the line until the next {@linkcode StatusLine.start}. */
  stop(): void {
    this.#active = false;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#erase();
  }

  /** Hide the line while something else asks the operator (an approval), until `resume()`. */
  pause(): void {
    this.#active = false;
    this.#erase();
  }

  /** Show the line again after {@linkcode StatusLine.pause}. */
  resume(): void {
    if (this.#timer !== undefined) this.#active = true;
  }

  /** A sink for other output: the status line is erased first and comes back under it. */
  sink(out: TextSink): TextSink {
    return {
      write: (text: string) => {
        if (text === "") return;
        this.#erase();
        out.write(text.replace(/\r?\n/g, "\r\n"));
        this.#midLine = !text.endsWith("\n");
      },
    };
  }

  #erase(): void {
    if (!this.#shown) return;
    this.#options.out.write("\r\x1b[K");
    this.#shown = false;
  }

  #draw(): void {
    if (!this.#active || this.#midLine) return;
    const elapsed = `${((this.#now() - this.#started) / 1000).toFixed(1)} s`;
    const tokens = this.#tokensIn + this.#tokensOut > 0
      ? ` · ↑${short(this.#tokensIn)} ↓${short(this.#tokensOut)} tokens`
      : "";
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    const tail = ` · ${elapsed}${tokens} · Esc to interrupt`;
    const room = Math.max(10, (this.#options.columns?.() ?? 80) - 1 - tail.length - 2);
    const label = this.#label.length > room ? `${this.#label.slice(0, room - 1)}…` : this.#label;
    const line = `${frame} ${label}${tail}`;
    this.#options.out.write(`\r\x1b[K${this.#options.color ? `\x1b[2m${line}\x1b[0m` : line}`);
    this.#shown = true;
  }
}

function short(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}
