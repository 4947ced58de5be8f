/**
 * Renders the runs of an interactive session: answers as terminal markdown, reasoning dimmed, a
 * live status line (spinner, elapsed time, tokens, the key to interrupt), and tool lines, diffs
 * and warnings as `odek run` shows them ({@linkcode TerminalRenderer}).
 *
 * @module
 */
import type { RunEvent } from "../loop/run_event.ts";
import type { TextSink } from "./cli_io.ts";
import { describeTarget } from "./_tool_lines.ts";
import { MarkdownStream } from "./markdown_stream.ts";
import { StatusLine } from "./status_line.ts";
import { TerminalRenderer } from "./terminal_renderer.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** Options of {@linkcode ChatRenderer}. */
export interface ChatRendererOptions {
  /** The terminal (the session writes everything to one place). */
  out: TextSink;
  color: boolean;
  /** Terminal width in columns. @default 80 */
  columns?: () => number;
  /** Milliseconds now, for the status line. @default performance.now */
  now?: () => number;
}

/**
 * One renderer for the whole interactive session: the banner is shown for the session's first
 * run only; every other event of every run is rendered as it comes.
 *
 * @example A streamed answer in markdown
 * ```ts
 * import { ChatRenderer } from "./chat_renderer.ts";
 * let screen = "";
 * const r = new ChatRenderer({ out: { write: (t) => (screen += t) }, color: false });
 * r.startRun();
 * const event = (type: string, data: unknown) =>
 *   ({ schema: "odek.event/v1", type, run_id: "r", timestamp: "", data }) as never;
 * r.handle(event("text_delta", { text: "## Done\n\nAll `tests` pass.\n" }));
 * r.handle(event("assistant_message", { content: "", tool_call_count: 0, finish_reason: "stop" }));
 * r.endRun();
 * if (!screen.includes("## Done") || !screen.includes("All tests pass.")) throw new Error(screen);
 * ```
 */
export class ChatRenderer {
  readonly #status: StatusLine;
  readonly #out: TextSink;
  readonly #color: boolean;
  readonly #tools: TerminalRenderer;
  readonly #markdown: MarkdownStream;
  #bannerShown = false;
  #reasoning = false;
  #tokensIn = 0;
  #tokensOut = 0;
  #streamed = 0;
  readonly #running = new Map<string, string>();

  /** @param options terminal, colour, width */
  constructor(options: ChatRendererOptions) {
    this.#color = options.color;
    this.#status = new StatusLine({
      out: options.out,
      color: options.color,
      ...(options.columns ? { columns: options.columns } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.#out = this.#status.sink(options.out);
    // Tool lines as plain lines: the status line is this renderer's, not the tool renderer's.
    this.#tools = new TerminalRenderer({
      stdout: this.#out,
      stderr: this.#out,
      stderrIsTerminal: false,
      color: options.color,
      undoHint: "/undo",
    });
    this.#markdown = new MarkdownStream({
      write: (text) => this.#out.write(text),
      color: options.color,
      width: Math.min(100, Math.max(20, (options.columns?.() ?? 80) - 2)),
    });
  }

  /** The sink other output goes through while a run is shown (it keeps the status line below). */
  get out(): TextSink {
    return this.#out;
  }

  /** The status line (paused while an approval asks). */
  get status(): StatusLine {
    return this.#status;
  }

  /** A run starts: show the status line. */
  startRun(): void {
    this.#tokensIn = 0;
    this.#tokensOut = 0;
    this.#streamed = 0;
    this.#status.start("thinking");
  }

  /** The run ended: flush what is left and hide the status line. */
  endRun(): void {
    this.#endText();
    this.#status.stop();
    this.#tools.close();
  }

  /** Render one event of the current run. */
  handle(event: RunEvent): void {
    switch (event.type) {
      case "run_started":
        if (this.#bannerShown) return;
        this.#bannerShown = true;
        this.#tools.handle(event);
        return;
      case "reasoning_delta":
        if (!this.#reasoning) this.#out.write(this.#paint("2", "thinking: "));
        this.#reasoning = true;
        this.#out.write(this.#paint("2", terminalSafe(event.data.text)));
        this.#count(event.data.text);
        this.#status.label = "thinking";
        return;
      case "text_delta":
        this.#endReasoning();
        this.#markdown.write(event.data.text);
        this.#count(event.data.text);
        this.#status.label = "answering";
        return;
      case "assistant_message":
      case "partial_summary":
        this.#endText();
        if (event.type === "partial_summary") this.#tools.handle(event);
        this.#status.label = "thinking";
        return;
      case "iteration_completed":
        this.#tokensIn += event.data.input_tokens;
        this.#tokensOut += event.data.output_tokens;
        this.#streamed = 0;
        this.#status.tokens(this.#tokensIn, this.#tokensOut);
        return;
      case "tool_call_started":
        this.#endText();
        this.#running.set(
          event.data.call_id,
          terminalSafe(
            `${event.data.name} ${describeTarget(event.data.name, event.data.args)}`,
            true,
          ),
        );
        this.#tools.handle(event);
        this.#status.label = this.#runningLabel();
        return;
      case "tool_call_completed":
      case "tool_call_failed":
        this.#running.delete(event.data.call_id);
        this.#tools.handle(event);
        this.#status.label = this.#running.size > 0 ? this.#runningLabel() : "thinking";
        return;
      case "approval_requested":
        this.#endText();
        this.#status.pause();
        return;
      case "approval_answered":
        this.#status.resume();
        return;
      default:
        this.#tools.handle(event);
    }
  }

  /** Output tokens of the reply being streamed, estimated at 4 characters a token. */
  #count(text: string): void {
    this.#streamed += text.length;
    this.#status.tokens(this.#tokensIn, this.#tokensOut + Math.ceil(this.#streamed / 4));
  }

  #runningLabel(): string {
    const [first] = this.#running.values();
    const more = this.#running.size > 1 ? ` (+${this.#running.size - 1})` : "";
    return `running ${first}${more}`;
  }

  #endReasoning(): void {
    if (this.#reasoning) this.#out.write("\n");
    this.#reasoning = false;
  }

  #endText(): void {
    this.#endReasoning();
    this.#markdown.end();
  }

  #paint(code: string, text: string): string {
    return this.#color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}
