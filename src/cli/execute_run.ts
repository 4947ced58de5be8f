/**
 * Follows a run for `odek run` and `odek continue`: signal handling, rendering (terminal or
 * `--json`), the closing summary line, and the exit code. The run itself is the runtime's.
 *
 * @module
 */
import type { RunStats } from "../loop/run_stats.ts";
import type { SessionHost } from "../runtime/session_host.ts";
import type { CliIO } from "./cli_io.ts";
import type { EventsJsonlSink } from "./events_jsonl_sink.ts";
import { EXIT, exitCodeFor } from "./exit_code.ts";
import { TerminalRenderer } from "./terminal_renderer.ts";
import { terminalSafeJson } from "./terminal_safe_json.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** Inputs of {@linkcode executeRun}. */
export interface ExecuteRunOptions {
  io: CliIO;
  /** The session host the run starts on (the caller disposes it). */
  host: SessionHost;
  /** The user message to go on with (`odek continue … "message"`). */
  message?: string;
  json: boolean;
  /** The `--events-jsonl` audit sink, already open; closed when the run ends. */
  events?: EventsJsonlSink;
}

/**
 * Start a run on the host and follow it to the end: SIGINT/SIGTERM become the run's abort
 * signal, every event is rendered (terminal or `--json`) and written to the events file, and the
 * closing summary line and the exit code come from the outcome (0 ok, 1 error, 4 budget,
 * 5 stalled, 130 SIGINT, 143 SIGTERM). A new session that never reached the model is removed
 * by the runtime; its task is printed back on stderr. The events file is closed in every case.
 *
 * @throws what `host.startRun` throws (`USAGE` when the session has nothing left to do)
 */
export async function executeRun(options: ExecuteRunOptions): Promise<number> {
  const { io, host } = options;
  // Warnings quote project files (keys, paths): printed with escapes removed.
  let shown = 0;
  const printWarnings = () => {
    for (const warning of host.warnings.slice(shown)) {
      io.stderr.write(`odek: warning: ${terminalSafe(warning)}\n`);
    }
    shown = host.warnings.length;
  };
  // The sandbox's and the egress proxy's warnings come once those parts are up: the run's first
  // request starts them (a part that fails fails the run instead).
  let watching: Promise<void> | undefined;
  const watchLate = () => {
    watching ??= host.whenReady()?.then(printWarnings, () => {});
  };
  try {
    printWarnings();
    return await follow(options, watchLate);
  } finally {
    watchLate();
    await watching;
    await closeEvents(options.events, io);
  }
}

async function follow(options: ExecuteRunOptions, watchLate: () => void): Promise<number> {
  const { io, host } = options;
  const controller = new AbortController();
  let signalName: "SIGINT" | "SIGTERM" | undefined;
  const stop = (name: "SIGINT" | "SIGTERM") => () => {
    if (signalName) return;
    signalName = name;
    io.stderr.write(`\nodek: ${name} received: stopping tools and saving the session…\n`);
    controller.abort(name);
  };
  const removers = [io.onSignal("SIGINT", stop("SIGINT")), io.onSignal("SIGTERM", stop("SIGTERM"))];
  const color = io.stderrIsTerminal && !("NO_COLOR" in io.env);
  const renderer = options.json ? undefined : new TerminalRenderer({
    stdout: io.stdout,
    stderr: io.stderr,
    stderrIsTerminal: io.stderrIsTerminal,
    color,
  });
  try {
    const run = await host.startRun({
      ...(options.message !== undefined ? { message: options.message } : {}),
      signal: controller.signal,
    });
    for (const warning of run.warnings) {
      io.stderr.write(`odek: warning: ${terminalSafe(warning)}\n`);
    }
    // The run never waits for this loop; the events arrive redacted and numbered.
    for await (const event of run.events) {
      watchLate();
      options.events?.handle(event);
      if (options.json) io.stdout.write(`${terminalSafeJson(event)}\n`);
      else renderer!.handle(event);
    }
    const outcome = await run.result;
    renderer?.close();
    const id = host.sessionId;
    const { stats, durationMs } = outcome;
    if (outcome.type === "failed" && outcome.discarded) {
      const code = fail(outcome.error, stats, durationMs, discardedHint(id));
      const typed = outcome.discarded.messages.map((m) => terminalSafe(host.redact(m)));
      io.stderr.write(`odek: your task was:\n\n${typed.join("\n\n")}\n\n`);
      return code;
    }
    switch (outcome.type) {
      case "completed":
        io.stderr.write(`odek: done · ${summary(stats, durationMs)} · session ${id}\n`);
        return EXIT.ok;
      case "budget_exceeded":
        return fail(
          outcome.error,
          stats,
          durationMs,
          outcome.breach.limit_name === "iterations"
            ? `The session is saved: continue it with odek continue ${id} --max-iterations <n>.`
            : `The session is saved: continue it with odek continue ${id} (with a higher limit).`,
        );
      case "stalled":
        return fail(outcome.error, stats, durationMs);
      case "interrupted":
        fail(outcome.error, stats, durationMs);
        return signalName === "SIGTERM" ? EXIT.terminated : EXIT.interrupted;
      case "failed":
        return fail(
          outcome.error,
          stats,
          durationMs,
          `The session is saved: resume it with odek continue ${id}.`,
        );
      default: {
        const unreachable: never = outcome;
        throw new TypeError(`Unknown outcome: ${JSON.stringify(unreachable)}`);
      }
    }
  } finally {
    renderer?.close();
    removers.forEach((remove) => remove());
  }

  function fail(error: Error, stats: RunStats, durationMs: number, hint?: string): number {
    // The message may quote a provider's error body: nothing in it may drive the terminal.
    const message = host.redact(error.message);
    io.stderr.write(
      `odek: ${terminalSafe(message)}${hint ? ` ${hint}` : ""}\nodek: ${
        summary(stats, durationMs)
      }\n`,
    );
    return exitCodeFor(error);
  }
}

/** What a removed session's failure says instead of "the session is saved". */
function discardedHint(id: string): string {
  return `No model request of session ${id} succeeded, so nothing in it is worth keeping: it is removed (start again with odek run once the problem is fixed).`;
}

async function closeEvents(events: EventsJsonlSink | undefined, io: CliIO): Promise<void> {
  if (!events) return;
  await events.close();
  if (events.error) {
    io.stderr.write(
      `odek: writing the events file failed (${events.error.message}); ${events.dropped} event(s) were not written.\n`,
    );
  } else if (events.dropped > 0) {
    io.stderr.write(
      `odek: the events file missed ${events.dropped} event(s): the disk could not keep up.\n`,
    );
  }
}

function summary(stats: RunStats, ms: number): string {
  const time = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  return `${n(stats.iterations, "step")} · ${
    n(stats.toolCalls, "tool call")
  } · ${stats.inputTokens} in / ${stats.outputTokens} out tokens · ${time}`;
}
