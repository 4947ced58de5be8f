/**
 * The interactive terminal session (`odek`, `odek chat`, `odek continue` at a terminal): one
 * session host for the whole conversation, each message a run, Esc to interrupt a run and
 * redirect, slash commands, approvals answered with single keys.
 *
 * @module
 */
import type { OperatorTerminal } from "../approval/_tty_lines.ts";
import { TerminalApprover } from "../approval/terminal_approver.ts";
import { TerminalClarifier } from "../approval/terminal_clarifier.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { RunEventData } from "../loop/run_event.ts";
import type { Run } from "../runtime/run.ts";
import type { RunOutcome } from "../runtime/run_outcome.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionHost } from "../runtime/session_host.ts";
import type { CliIO, TextSink } from "./cli_io.ts";
import { cliMcpTools } from "./cli_mcp_tools.ts";
import { delegateTasks } from "../runtime/subagents/delegate_tasks.ts";
import { ChatRenderer } from "./chat_renderer.ts";
import { ChatHistory } from "./chat_history.ts";
import { readLine } from "./line_editor.ts";
import { chatOperatorTerminal } from "./chat_operator_terminal.ts";
import type { RunFlags } from "./parse_run_flags.ts";
import { completeSlash, runSlashCommand } from "./slash_commands.ts";
import { elsewhereNote } from "./pick_session.ts";
import { EXIT } from "./exit_code.ts";
import type { KeySource } from "./terminal_keys.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** Inputs of {@linkcode ChatSession}. */
export interface ChatSessionOptions {
  io: CliIO;
  runtime: Runtime;
  /** The keyboard (the terminal in raw mode). */
  keys: KeySource;
  /** The command's flags (workspace, added directories, model, trust …). */
  flags: RunFlags;
  /** The terminal every line goes to (raw mode: lines end in `\r\n`). */
  out: TextSink;
  /** Use colours. */
  color: boolean;
  /** Where the input history is kept (mode 0600). @default none: not kept */
  historyPath?: string;
  /** Terminal width. @default 80 */
  columns?: () => number;
}

/** What can change between the hosts of one conversation (`/model`, `/trust`, `/resume`). */
export interface HostChoice {
  model?: string;
  trust?: TrustLevel;
}

/**
 * One interactive conversation. {@linkcode ChatSession.start} opens a session to resume (or
 * none: the first message is a new session's task); {@linkcode ChatSession.loop} reads and runs
 * until `/exit`, Ctrl-D or Ctrl-C twice, and returns the exit code (0).
 */
export class ChatSession implements AsyncDisposable {
  readonly io: CliIO;
  readonly runtime: Runtime;
  readonly keys: KeySource;
  readonly flags: RunFlags;
  /** Everything written to the terminal goes here (through the status line when a run shows). */
  readonly out: TextSink;
  readonly color: boolean;
  readonly renderer: ChatRenderer;
  readonly columns: () => number;
  readonly #history: ChatHistory;
  #host: SessionHost | undefined;
  #choice: HostChoice = {};
  #run: Run | undefined;
  #watch: AbortController | undefined;
  #asking = 0;
  #typeahead = "";
  #interrupting = false;
  #leave = false;
  #lastCtrlC = -Infinity;
  #compactNext = false;
  /** The last run's banner data (model, endpoint, sandbox), for `/status`. */
  banner: RunEventData["run_started"] | undefined;
  /** Tokens and tool calls of the runs of this conversation. */
  readonly spent = { inputTokens: 0, outputTokens: 0, toolCalls: 0, runs: 0 };

  /** @param options the process, runtime, keyboard, flags and terminal */
  constructor(options: ChatSessionOptions) {
    this.io = options.io;
    this.runtime = options.runtime;
    this.keys = options.keys;
    this.flags = options.flags;
    this.color = options.color;
    this.columns = options.columns ?? (() => 80);
    this.renderer = new ChatRenderer({
      out: options.out,
      color: options.color,
      columns: this.columns,
    });
    this.out = this.renderer.out;
    this.#history = new ChatHistory(options.historyPath);
    if (options.flags.layer.model !== undefined) this.#choice.model = options.flags.layer.model;
  }

  /** The open session host, if a session has started. */
  get host(): SessionHost | undefined {
    return this.#host;
  }

  /** The model and trust chosen with `/model` and `/trust` for the next host. */
  get choice(): Readonly<HostChoice> {
    return this.#choice;
  }

  /** Choose the model or trust level of the next host (a session not started yet). */
  choose(choice: HostChoice): void {
    this.#choice = { ...this.#choice, ...choice };
  }

  /**
   * Fold the earlier turns into a summary when the next message is sent (`/compact`).
   * @returns how many turns the session has so far
   */
  compactNext(): number {
    this.#compactNext = true;
    return this.#host?.turns().length ?? 0;
  }

  /** Ask to leave after the current command. */
  leave(): void {
    this.#leave = true;
  }

  /** A line on the terminal, dimmed. */
  note(text: string): void {
    this.out.write(`${this.color ? `\x1b[2m${text}\x1b[0m` : text}\n`);
  }

  /** Resume `sessionId` (`odek continue`), or wait for a first message (a new session). */
  async start(sessionId?: string): Promise<void> {
    await this.#history.load();
    this.note(
      "odek interactive · Enter sends · Alt-Enter or \\ for a new line · Esc interrupts · /help · Ctrl-D leaves",
    );
    if (sessionId !== undefined) await this.open({ sessionId });
  }

  /**
   * Close the open host (if any) and open `target` with the conversation's flags and choices.
   * @throws what `runtime.openSession` throws (the host stays closed)
   */
  async open(target: { sessionId: string } | { task: string }, choice: HostChoice = {}) {
    await this.closeHost();
    this.#choice = { ...this.#choice, ...choice };
    const terminal = this.#operatorTerminal();
    const clarifier = new TerminalClarifier({ terminal });
    const f = this.flags;
    const model = this.#choice.model;
    this.#host = await this.runtime.openSession(target, {
      ...(f.workspace !== undefined ? { workspace: f.workspace } : {}),
      ...("task" in target ? {} : { dedicatedWorkspace: f.dedicatedWorkspace }),
      addDirs: f.addDirs,
      ...(model !== undefined ? { model } : {}),
      ...(this.#choice.trust !== undefined ? { trust: this.#choice.trust } : {}),
      ...(f.layer.baseUrl !== undefined ? { baseUrl: f.layer.baseUrl } : {}),
      ...(f.system !== undefined && "task" in target ? { system: f.system } : {}),
      approver: new TerminalApprover({ terminal }),
      clarifier,
      reaskApprovals: true,
      tools: [...cliMcpTools(this.runtime, this.io, clarifier), delegateTasks()],
    });
    const host = this.#host;
    for (const warning of host.warnings) this.note(`odek: warning: ${terminalSafe(warning)}`);
    // The sandbox and the classifier start while the operator types; their warnings once up (a
    // part that failed fails the first run instead).
    const shown = host.warnings.length;
    void host.ready().then(() => {
      for (const w of host.warnings.slice(shown)) this.note(`odek: warning: ${terminalSafe(w)}`);
    }, () => {});
    if ("sessionId" in target) {
      // Said first: a session that works in another directory must never edit it unannounced.
      const elsewhere = await elsewhereNote(
        this.#host.workspace,
        this.io.callerDir,
        target.sessionId,
      );
      if (elsewhere) this.note(elsewhere);
      const turns = this.#host.turns().length;
      this.note(`resumed session ${this.#host.sessionId} (${turns} turn${turns === 1 ? "" : "s"})`);
    }
  }

  /** Close the open host: its tool children, background jobs and approval memory end with it. */
  async closeHost(): Promise<void> {
    const host = this.#host;
    this.#host = undefined;
    await host?.close();
  }

  /**
   * Read and run until the operator leaves (0), or a signal ends the session: SIGINT (130, but
   * during a run it interrupts the run only) or SIGTERM (143). Raw mode keeps Ctrl-C from being
   * a signal: these come from another process.
   *
   * @returns the exit code
   */
  async loop(): Promise<number> {
    const prompt = new AbortController();
    let signalled: "SIGINT" | "SIGTERM" | undefined;
    const on = (name: "SIGINT" | "SIGTERM") => () => {
      if (name === "SIGINT" && this.#run) return this.#interrupt("SIGINT");
      signalled = name;
      this.#leave = true;
      this.#interrupt(name);
      prompt.abort(name);
    };
    const removers = [
      this.io.onSignal("SIGINT", on("SIGINT")),
      this.io.onSignal("SIGTERM", on("SIGTERM")),
    ];
    try {
      await this.#loop(prompt.signal);
    } catch (error) {
      if (!prompt.signal.aborted) throw error;
    } finally {
      removers.forEach((remove) => remove());
    }
    return signalled === "SIGINT"
      ? EXIT.interrupted
      : signalled === "SIGTERM"
      ? EXIT.terminated
      : EXIT.ok;
  }

  async #loop(signal: AbortSignal): Promise<void> {
    while (!this.#leave) {
      const initial = this.#typeahead;
      this.#typeahead = "";
      const result = await readLine(this.keys, this.out, {
        prompt: "› ",
        history: this.#history.entries,
        complete: completeSlash,
        columns: this.columns,
        initial,
        signal,
      });
      if (result.type === "eof") break;
      if (result.type === "ctrl-c") {
        if (result.cleared) continue;
        if (performance.now() - this.#lastCtrlC < 2000) break;
        this.#lastCtrlC = performance.now();
        this.note("(Ctrl-C again to leave, or /exit)");
        continue;
      }
      const text = result.text.trim();
      if (text === "") continue;
      await this.#history.add(result.text);
      try {
        if (text.startsWith("/")) await runSlashCommand(this, text);
        else await this.send(result.text);
      } catch (error) {
        this.note(`odek: ${terminalSafe(error instanceof Error ? error.message : String(error))}`);
      }
    }
  }

  /** Send a message: the first one starts the session, the others are runs on its host. */
  async send(message: string): Promise<RunOutcome> {
    if (!this.#host) {
      await this.open({ task: message });
      return await this.follow(await this.#host!.startRun());
    }
    const compact = this.#compactNext;
    const run = await this.#host.startRun({ message, ...(compact ? { compact } : {}) });
    this.#compactNext = false;
    return await this.follow(run);
  }

  /** Show a run to its end, Esc or Ctrl-C interrupting it. */
  async follow(run: Run): Promise<RunOutcome> {
    this.#run = run;
    this.#interrupting = false;
    this.renderer.startRun();
    this.#watchKeys();
    try {
      for await (const event of run.events) {
        if (event.type === "run_started") this.banner = event.data;
        this.renderer.handle(event);
      }
      const outcome = await run.result;
      this.renderer.endRun();
      this.#report(outcome);
      return outcome;
    } finally {
      this.renderer.endRun();
      this.#run = undefined;
      this.#watch?.abort();
      this.#watch = undefined;
    }
  }

  #report(outcome: RunOutcome): void {
    const { stats, durationMs } = outcome;
    this.spent.inputTokens += stats.inputTokens;
    this.spent.outputTokens += stats.outputTokens;
    this.spent.toolCalls += stats.toolCalls;
    this.spent.runs++;
    const time = `${(durationMs / 1000).toFixed(1)} s`;
    const figures =
      `${stats.iterations} step(s) · ${stats.toolCalls} tool call(s) · ${stats.inputTokens} in / ${stats.outputTokens} out tokens · ${time}`;
    const safe = (error: Error) => terminalSafe(this.#host?.redact(error.message) ?? error.message);
    switch (outcome.type) {
      case "completed":
        this.note(`✓ ${figures}`);
        return;
      case "interrupted":
        this.note(
          `■ interrupted · ${figures} · the session is kept: type to go on, or say what to do instead`,
        );
        return;
      case "budget_exceeded":
      case "stalled":
      case "failed":
        this.note(`■ ${safe(outcome.error)} · ${figures}`);
        if (outcome.type === "failed" && outcome.discarded) void this.closeHost();
        return;
      default: {
        const unreachable: never = outcome;
        throw new TypeError(`Unknown outcome: ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** Watch the keyboard while a run goes: Esc or Ctrl-C interrupt; other typing is kept. */
  #watchKeys(): void {
    if (!this.#run || this.#asking > 0) return;
    const watch = new AbortController();
    this.#watch = watch;
    void (async () => {
      while (!watch.signal.aborted) {
        let key;
        try {
          key = await this.keys.next(watch.signal);
        } catch {
          return;
        }
        if (key === null) {
          this.#leave = true;
          this.#interrupt("the terminal closing");
          return;
        }
        if (key.type === "key" && (key.name === "escape" || key.name === "ctrl-c")) {
          if (key.name === "ctrl-c" && this.#interrupting) this.#leave = true;
          this.#interrupt(key.name === "escape" ? "Esc" : "Ctrl-C");
        } else if (key.type !== "key") {
          this.#typeahead += key.text;
        }
      }
    })();
  }

  #interrupt(by: string): void {
    const run = this.#run;
    if (!run) return;
    if (!this.#interrupting) {
      this.note(`■ ${by}: stopping the step… (Ctrl-C again to leave)`);
    }
    this.#interrupting = true;
    run.cancel(`interrupted by the operator (${by})`);
  }

  /** The approver's and clarifier's terminal: the session's keyboard, single keys for choices. */
  #operatorTerminal(): OperatorTerminal {
    return chatOperatorTerminal({
      keys: this.keys,
      out: this.out,
      columns: this.columns,
      begin: () => {
        this.#asking++;
        this.#watch?.abort();
        this.#watch = undefined;
        this.renderer.status.pause();
      },
      end: () => {
        this.#asking--;
        this.renderer.status.resume();
        this.#watchKeys();
      },
      interrupt: (by) => this.#interrupt(by),
    });
  }

  /** Close the host (`await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.closeHost();
  }
}
