/**
 * `odek chat` (and `odek` with no command, and `odek continue` at a terminal): the interactive
 * terminal session.
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { CliIO, TextSink } from "./cli_io.ts";
import { ChatSession } from "./chat_session.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { parseRunFlags, type RunFlags } from "./parse_run_flags.ts";
import { type KeySource, TerminalKeys } from "./terminal_keys.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** The terminal an interactive session runs on (tests pass their own). */
export interface ChatTerminal {
  keys: KeySource & Disposable;
  out: TextSink;
  columns: () => number;
}

/** Whether `io` can hold an interactive session: standard input and error are terminals. */
export function canChat(io: CliIO): boolean {
  return io.stdinIsTerminal && io.stderrIsTerminal;
}

/**
 * Run `odek chat` with its arguments: a first message may follow the flags.
 *
 * @returns the exit code (0 when the operator leaves)
 * @throws {OdekError} `USAGE` for bad flags, flags of the one-shot commands, or no terminal
 */
export async function chatCommand(args: string[], io: CliIO): Promise<number> {
  const flags = parseRunFlags(args, "chat");
  if (flags.help) {
    io.stdout.write(`${HELP_TEXT.chat}\n`);
    return EXIT.ok;
  }
  const oneShot = oneShotFlag(flags);
  if (oneShot) {
    throw new OdekError(
      "USAGE",
      `${oneShot} is for one-shot runs: use odek run (the interactive session asks you at the terminal).`,
    );
  }
  await using runtime = await cliRuntime(io, flags.layer);
  const message = flags.positionals.join(" ").trim();
  return await chat(io, runtime, flags, { ...(message !== "" ? { message } : {}) });
}

/** The first flag given that only a one-shot run has (`--json`, `--yes`, …), if any. */
export function oneShotFlag(flags: RunFlags): string | undefined {
  return flags.json
    ? "--json"
    : flags.eventsJsonl !== undefined
    ? "--events-jsonl"
    : flags.yes !== undefined
    ? "--yes"
    : flags.record !== undefined
    ? "--record"
    : flags.replay !== undefined
    ? "--replay"
    : undefined;
}

/**
 * Hold an interactive session on `io`'s terminal until the operator leaves.
 *
 * @param start a session to resume and a first message to send
 * @param terminal the keyboard and screen @default the process's terminal in raw mode
 * @throws {OdekError} `USAGE` without a terminal; what opening a resumed session throws
 */
export async function chat(
  io: CliIO,
  runtime: Runtime,
  flags: RunFlags,
  start: { sessionId?: string; message?: string },
  terminal?: ChatTerminal,
): Promise<number> {
  if (!terminal && !canChat(io)) {
    throw new OdekError(
      "USAGE",
      'The interactive session needs a terminal on stdin and stderr: for scripts use odek run "<task>" (or odek continue --print).',
    );
  }
  const term = terminal ?? processTerminal(io);
  using keys = term.keys;
  await using session = new ChatSession({
    io,
    runtime,
    keys,
    flags,
    out: term.out,
    color: !("NO_COLOR" in io.env),
    historyPath: join(runtime.paths.odekHome, "history.jsonl"),
    columns: term.columns,
  });
  await session.start(start.sessionId);
  if (start.message !== undefined) {
    try {
      await session.send(start.message);
    } catch (error) {
      session.note(`odek: ${terminalSafe(error instanceof Error ? error.message : String(error))}`);
    }
  }
  return await session.loop();
}

function processTerminal(io: CliIO): ChatTerminal {
  const keys = new TerminalKeys({
    read: (p) => Deno.stdin.read(p),
    setRaw: (mode) => Deno.stdin.setRaw(mode),
  });
  return {
    keys,
    out: io.stderr,
    columns: () => {
      try {
        return Deno.consoleSize().columns;
      } catch {
        return 80;
      }
    },
  };
}
