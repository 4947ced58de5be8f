/**
 * Renders run events for a person: the assistant's text streams to stdout; progress (the running
 * tool and its elapsed time) goes to stderr — an updating line on a terminal, plain lines
 * otherwise; colours only on a terminal and never when `NO_COLOR` is set (https://no-color.org).
 *
 * @module
 */
import type { RunEvent, RunEventData } from "../loop/run_event.ts";
import {
  completedBody,
  counts,
  describeTarget,
  failedBody,
  fileBody,
  fileList,
} from "./_tool_lines.ts";
import { terminalSafe } from "./terminal_safe.ts";
import {
  bannerLines,
  budgetAmounts,
  longDuration,
  RETRY_REASONS,
  seconds,
  spendText,
  subagentText,
} from "./_event_text.ts";

/** Where and how to render. */
export interface TerminalRendererOptions {
  stdout: { write(text: string): void };
  stderr: { write(text: string): void };
  /** stderr is a terminal: progress lines update in place. */
  stderrIsTerminal: boolean;
  /** Use ANSI colours on stderr. */
  color: boolean;
  /** How the run's file summary says to undo. @default "odek undo" */
  undoHint?: string;
}

/**
 * A stateful event sink for the terminal.
 *
 * @example Plain lines when stderr is not a terminal
 * ```ts
 * import { TerminalRenderer } from "./terminal_renderer.ts";
 * let err = "";
 * const r = new TerminalRenderer({ stdout: { write() {} }, stderr: { write: (t) => (err += t) }, stderrIsTerminal: false, color: false });
 * r.handle({ schema: "odek.event/v1", type: "tool_call_started", run_id: "r", timestamp: "", tool: "shell",
 *   data: { call_id: "c", name: "shell", args: { command: "ls" }, args_sha256: "", args_bytes: 2 } });
 * if (!err.includes("shell")) throw new Error(err);
 * ```
 */
export class TerminalRenderer {
  readonly #options: TerminalRendererOptions;
  readonly #running = new Map<string, { label: string; started: number }>();
  /** Call id → name and target, for the lines of files a call changed. */
  readonly #calls = new Map<string, { name: string; label: string }>();
  /** Each writing step's changes arrive as `files_changed` (with a diff) when checkpoints are on. */
  #checkpoints = false;
  /** The file lists shown for this run's steps (the run's summary does not repeat the only one). */
  #stepLists: string[] = [];
  #textOpen = false;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: TerminalRendererOptions) {
    this.#options = options;
  }

  /** Render one event. */
  handle(event: RunEvent): void {
    switch (event.type) {
      case "run_started": {
        this.#banner(event.data, event.session_id);
        const spend = event.data.session_spend;
        if (spend) this.#line(`${this.#paint("2", "≈")} ${spendText(spend)}`);
        break;
      }
      case "text_delta":
        this.#options.stdout.write(terminalSafe(event.data.text));
        this.#textOpen = true;
        break;
      case "model_retry": {
        // Text of the failed attempt stays on screen; the line marks where the retry restarts it.
        if (this.#textOpen) this.#options.stdout.write("\n");
        this.#textOpen = false;
        const { attempt, max_attempts, wait_ms, reason, status } = event.data;
        const why = status === undefined ? (RETRY_REASONS[reason] ?? reason) : `HTTP ${status}`;
        this.#line(
          `${this.#paint("33", "↻")} model ${
            terminalSafe(why, true)
          }: retry ${attempt}/${max_attempts} in ${seconds(wait_ms)}`,
        );
        break;
      }
      case "assistant_message":
        if (this.#textOpen) this.#options.stdout.write("\n");
        this.#textOpen = false;
        break;
      case "tool_call_started": {
        const { name, call_id } = event.data;
        const label = terminalSafe(`${name} ${describeTarget(name, event.data.args)}`.trim(), true);
        this.#running.set(call_id, { label, started: performance.now() });
        this.#calls.set(call_id, { name, label });
        this.#line(`${this.#paint("36", "▸")} ${label}`);
        this.#tick();
        break;
      }
      case "tool_call_completed": {
        const { name, call_id } = event.data;
        // A write's diff comes with its files_changed event: its result line says enough here.
        const edit = this.#checkpoints && (name === "write_file" || name === "patch");
        const body = edit ? "" : completedBody(name, event.data);
        this.#finish(
          call_id,
          `${this.#paint("32", "✓")} ${this.#label(call_id, name)} (${
            seconds(event.data.duration_ms)
          })${edit ? "" : this.#indent(body)}`,
        );
        break;
      }
      case "tool_call_failed": {
        const { name, call_id } = event.data;
        this.#finish(
          call_id,
          `${this.#paint("31", "✗")} ${this.#label(call_id, name)} ${event.data.error_class} (${
            seconds(event.data.duration_ms)
          })${this.#indent(failedBody(event.data.message))}`,
        );
        break;
      }
      case "files_changed":
        this.#filesChanged(event.data);
        break;
      case "run_files_changed":
        this.#runFilesChanged(event.data);
        break;
      case "checkpoints_off":
        this.#line(
          `${
            this.#paint("33", "!")
          } checkpoints are off for this session, so changes from now on cannot be undone: ${
            terminalSafe(event.data.reason, true)
          }`,
        );
        break;
      case "tool_running": {
        const running = this.#running.get(event.data.call_id);
        const label = running?.label ?? terminalSafe(event.data.name, true);
        this.#line(
          `${this.#paint("33", "⏳")} ${label.slice(0, 100)} still running (${
            longDuration(event.data.elapsed_ms)
          })`,
        );
        break;
      }
      case "stall_detected": {
        const { name, repeats, cycle_length, action } = event.data;
        const what = (cycle_length ?? 1) > 1
          ? `a cycle of ${cycle_length} calls (${terminalSafe(name, true)}) came ${repeats} times`
          : `${terminalSafe(name, true)} was called ${repeats} times`;
        this.#line(
          action === "stop"
            ? `${
              this.#paint("31", "■")
            } ${what} in a row with the same arguments and results after the hint: stopping the run`
            : `${
              this.#paint("33", "!")
            } ${what} in a row with the same arguments: odek told the model to change course`,
        );
        break;
      }
      case "budget_exceeded":
        this.#line(
          `${this.#paint("31", "■")} ${event.data.limit_name} budget spent: ${
            budgetAmounts(event.data)
          }${
            event.data.limit_name === "iterations"
              ? " (asking the model for a partial summary…)"
              : ""
          }`,
        );
        break;
      case "partial_summary":
        if (this.#textOpen) this.#options.stdout.write("\n");
        this.#textOpen = false;
        this.#options.stdout.write(
          `\n[Iteration budget reached — partial summary]\n${terminalSafe(event.data.text)}\n`,
        );
        break;
      case "content_flagged":
        this.#line(
          `${this.#paint("33", "!")} output of ${
            terminalSafe(event.tool ?? "a tool", true)
          } held hidden or terminal-control content (${
            event.data.kinds.join(", ")
          }); it was removed and the model was told`,
        );
        break;
      case "subagent_started":
      case "subagent_trust_lowered":
      case "subagent_waiting":
      case "subagent_completed":
        this.#line(`${this.#paint("35", "⇉")} ${subagentText(event)}`);
        break;
      case "egress":
        if (!event.data.allowed) {
          const { host, port, reason } = event.data;
          const where = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
          this.#line(
            `${this.#paint("33", "!")} egress refused ${
              terminalSafe(`${where}: ${reason ?? ""}`, true)
            }`,
          );
        }
        break;
      case "protected_reverted":
        this.#line(
          `${this.#paint("33", "!")} ${
            terminalSafe(event.data.name, true)
          } changed files the host runs later; odek undid it: ${
            terminalSafe(
              event.data.paths.map((p) => `${p.action} ${p.path}${p.why ? ` (${p.why})` : ""}`)
                .join(", "),
              true,
            )
          }`,
        );
        break;
      case "sandbox_refused":
        this.#line(
          `${this.#paint("31", "!")} ${terminalSafe(event.data.name, true)} refused: ${
            terminalSafe(event.data.reason, true)
          }`,
        );
        break;
      case "session_repaired": {
        const { tool_call_ids, reminted = [], arguments_reset = [] } = event.data;
        if (tool_call_ids.length > 0) {
          this.#line(
            `${
              this.#paint("33", "!")
            } ${tool_call_ids.length} tool call(s) were interrupted by the last stop, or never started, and were answered as such (not re-run)`,
          );
        }
        if (reminted.length + arguments_reset.length > 0) {
          this.#line(
            `${
              this.#paint("33", "!")
            } repaired history: ${reminted.length} duplicate tool-call id(s) re-minted, ${arguments_reset.length} unreadable argument(s) sent as {} (the journal keeps the originals)`,
          );
        }
        break;
      }
      case "context_trimmed":
        if (event.data.mode === "manual") {
          this.#line(
            `${
              this.#paint("2", "≈")
            } compacted: ${event.data.dropped_groups} earlier turn group(s) ` +
              `left out of the requests, ~${event.data.estimated_tokens} of ${event.data.window} tokens now`,
          );
          break;
        }
        this.#line(
          `${this.#paint("2", "≈")} context ${event.data.mode === "survival" ? "survival " : ""}` +
            `trim: ${event.data.dropped_groups} old turn(s) left out, ` +
            `${event.data.truncated_results} old result(s) shortened, ` +
            `~${event.data.estimated_tokens} of ${event.data.window} tokens`,
        );
        break;
      case "events_dropped":
        this.#line(
          `${this.#paint("33", "!")} ${
            event.data.to - event.data.from + 1
          } event(s) were not shown: the terminal fell behind (the session has everything)`,
        );
        break;
      case "compaction_failed":
        this.#line(
          `${this.#paint("33", "!")} compaction failed (${
            terminalSafe(event.data.reason, true)
          }): old turns were dropped without a summary`,
        );
        break;
      default:
        break;
    }
  }

  /** Stop the elapsed-time ticker. */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#options.stderrIsTerminal) this.#options.stderr.write("\r\x1b[K");
  }

  /** The call's label (its name and target), as its start line showed it. */
  #label(callId: string, name: string): string {
    return this.#running.get(callId)?.label ?? this.#calls.get(callId)?.label ??
      terminalSafe(name, true);
  }

  /** Model, endpoint, workspace, trust, session, sandbox and instruction files, on two lines. */
  #banner(data: RunEventData["run_started"], sessionId: string | undefined): void {
    this.#checkpoints = data.checkpoints === true;
    const [first, second] = bannerLines(data, sessionId);
    this.#line(this.#paint("2", terminalSafe(first.join(" · "), true)));
    this.#line(this.#paint("2", terminalSafe(second.join(" · "), true)));
  }

  /** The files one step changed, under it: a diff for edits, a new file's first lines, a list for many. */
  #filesChanged(data: RunEventData["files_changed"]): void {
    const editors = data.call_ids.map((id) => this.#calls.get(id)?.name);
    const edit = editors.every((name) => name === "write_file" || name === "patch");
    this.#stepLists.push(data.files.map((f) => `${f.change} ${f.path}`).join("\n"));
    if (!edit || data.files.length > 3) {
      const list = fileList(data.files, 12).map((line) => terminalSafe(line, true));
      this.#line(`${this.#paint("35", "±")} ${list.length === 1 ? list[0] : "files changed:"}`);
      if (list.length > 1) this.#line(list.map((l) => this.#paint("2", `  │ ${l}`)).join("\n"));
      return;
    }
    for (const file of data.files) {
      const head = `${this.#paint("35", "±")} ${terminalSafe(file.path, true)} ${
        file.change === "modified" ? "" : `(${file.change}) `
      }${counts(file)}`;
      const body = fileBody(file).map((line) => {
        const safe = terminalSafe(line, true);
        const color = line.startsWith("+") ? "32" : line.startsWith("-") ? "31" : "2";
        return this.#paint(color, `  │ ${safe}`);
      });
      this.#line([head, ...body].join("\n"));
    }
  }

  /** At the end of a run: every file it changed, with counts, and how to undo. */
  #runFilesChanged(data: RunEventData["run_files_changed"]): void {
    const added = data.files.reduce((n, f) => n + f.added, 0);
    const removed = data.files.reduce((n, f) => n + f.removed, 0);
    const n = data.files.length;
    this.#line(
      `${this.#paint("35", "±")} ${n} file${
        n === 1 ? "" : "s"
      } changed (+${added} -${removed}) · undo with: ${this.#options.undoHint ?? "odek undo"}`,
    );
    const same = this.#stepLists.length === 1 &&
      this.#stepLists[0] === data.files.map((f) => `${f.change} ${f.path}`).join("\n");
    this.#stepLists = [];
    if (same) return; // the one step's list above is this list
    this.#line(
      fileList(data.files).map((line) => `  ${terminalSafe(line, true)}`).join("\n"),
    );
  }

  #finish(callId: string, text: string): void {
    this.#running.delete(callId);
    this.#line(text);
    if (this.#running.size === 0) this.close();
  }

  /** Tool output under its status line, marked so it is not mistaken for odek's own text. */
  #indent(text: string): string {
    const body = terminalSafe(text).replace(/\n+$/, "");
    if (body === "") return "";
    return `\n${body.split("\n").map((line) => this.#paint("2", `  │ ${line}`)).join("\n")}`;
  }

  #line(text: string): void {
    const prefix = this.#options.stderrIsTerminal ? "\r\x1b[K" : "";
    this.#options.stderr.write(`${prefix}${text}\n`);
  }

  #tick(): void {
    if (!this.#options.stderrIsTerminal || this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      const oldest = [...this.#running.values()][0];
      if (!oldest) return;
      const elapsed = seconds(performance.now() - oldest.started);
      const more = this.#running.size > 1 ? ` +${this.#running.size - 1}` : "";
      this.#options.stderr.write(
        `\r\x1b[K${this.#paint("2", `… ${oldest.label.slice(0, 60)}${more} ${elapsed}`)}`,
      );
    }, 250);
  }

  #paint(code: string, text: string): string {
    return this.#options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }
}
