/**
 * Streamed assistant text rendered as terminal markdown (headings, lists, code blocks, inline
 * code) with `marked` and `marked-terminal`, one finished block at a time.
 *
 * @module
 */
import { Marked } from "marked";
import { markedTerminal } from "marked-terminal";
import { terminalSafe } from "./terminal_safe.ts";

/** Options of {@linkcode MarkdownStream}. */
export interface MarkdownStreamOptions {
  /** Where rendered blocks go. */
  write: (text: string) => void;
  /** Keep the renderer's colours and styles (else plain text). */
  color: boolean;
  /** Wrap paragraphs at this width in columns. @default 80 */
  width?: number;
}

/** Every escape sequence but SGR (colour and style): OSC 8 links and anything else are dropped. */
// deno-lint-ignore no-control-regex
const NOT_SGR = /\x1b(?:\[[0-9;?]*[A-Za-ln-z@^`{-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[^[\]])/g;
// deno-lint-ignore no-control-regex
const SGR = /\x1b\[[0-9;]*m/g;

/**
 * Buffers text deltas and renders each block once it is complete: at a blank line outside a
 * code fence, and whatever is left at {@linkcode MarkdownStream.end}. The model's text is made
 * terminal-safe before it is parsed, and the rendered output keeps only colour and style
 * sequences, so nothing the model writes can move the cursor, retitle the terminal or hide a
 * link target.
 *
 * @example A heading and a list, in pieces
 * ```ts
 * import { MarkdownStream } from "./markdown_stream.ts";
 * let out = "";
 * const md = new MarkdownStream({ write: (t) => (out += t), color: false });
 * md.write("# Plan\n\n- one\n");
 * md.write("- two\n");
 * md.end();
 * if (!out.includes("# Plan") || !out.includes("* two") || out.includes("\x1b")) throw new Error(out);
 * ```
 */
export class MarkdownStream {
  readonly #options: MarkdownStreamOptions;
  readonly #marked: Marked;
  #buffer = "";
  #wrote = false;

  /** @param options sink, colour and width */
  constructor(options: MarkdownStreamOptions) {
    this.#options = options;
    this.#marked = new Marked();
    // marked-terminal's extension object is typed for marked's own class; the shapes agree.
    this.#marked.use(
      markedTerminal({
        width: options.width ?? 80,
        reflowText: true,
        emoji: false,
        tab: 2,
      }) as Parameters<Marked["use"]>[0],
    );
    // marked-terminal 7.3 prints a tight list item's text raw (`**bold**` stays): render the
    // item's inline tokens; everything else falls back to marked-terminal (`false`).
    this.#marked.use({
      renderer: {
        text(token) {
          return "tokens" in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
        },
      },
    });
  }

  /** Whether any text arrived since the last {@linkcode MarkdownStream.end}. */
  get open(): boolean {
    return this.#wrote || this.#buffer !== "";
  }

  /** Add a piece of the answer; finished blocks are rendered at once. */
  write(text: string): void {
    this.#buffer += text;
    const cut = completeBlocks(this.#buffer);
    if (cut > 0) {
      this.#render(this.#buffer.slice(0, cut));
      this.#buffer = this.#buffer.slice(cut);
    }
  }

  /** Render what is left (the answer ended, or was cut). */
  end(): void {
    if (this.#buffer.trim() !== "") this.#render(this.#buffer);
    this.#buffer = "";
    this.#wrote = false;
  }

  #render(markdown: string): void {
    let out = this.#marked.parse(terminalSafe(markdown), { async: false }) as string;
    out = out.replace(NOT_SGR, "");
    if (!this.#options.color) out = out.replace(SGR, "");
    out = out.replace(/\n{3,}/g, "\n\n");
    if (!out.endsWith("\n")) out += "\n";
    this.#options.write(this.#wrote ? out : out.replace(/^\n+/, ""));
    this.#wrote = true;
  }
}

/** The length of the prefix of `text` that ends with a blank line outside a code fence. */
function completeBlocks(text: string): number {
  let fence = false;
  let cut = 0;
  let offset = 0;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length - 1; i++) {
    const line = lines[i];
    offset += line.length + 1;
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      fence = !fence;
      if (!fence) cut = offset; // a closed code block is complete
      continue;
    }
    if (!fence && line.trim() === "" && i > 0) cut = offset;
  }
  return cut;
}
