/**
 * `odek run "<task>"`: start a new run, or continue a named session with `--session`.
 *
 * @module
 */
import { lazyModule } from "../_util/lazy_module.ts";
import { resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EventsJsonlSink } from "./events_jsonl_sink.ts";
import { executeRun } from "./execute_run.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { parseRunFlags, type RunFlags } from "./parse_run_flags.ts";
import { delegateTasks } from "../runtime/subagents/delegate_tasks.ts";
import { cliMcpTools } from "./cli_mcp_tools.ts";
import { terminalOperator } from "./terminal_operator.ts";

/**
 * Run `odek run` with its arguments (after the word `run`).
 *
 * @returns the exit code
 * @throws {OdekError} `USAGE` for bad flags or a missing task; configuration, workspace, key and
 *   session errors from the runtime.
 */
export async function runCommand(args: string[], io: CliIO): Promise<number> {
  performance.mark("odek:runcmd");
  const flags = parseRunFlags(args, "run");
  if (flags.help) {
    io.stdout.write(`${HELP_TEXT.run}\n`);
    return EXIT.ok;
  }
  if (flags.session === "") {
    throw new OdekError(
      "USAGE",
      '--session needs a name, e.g. --session fix-login. Run "odek run --help".',
    );
  }
  const task = await readTask(flags.positionals, io);
  performance.mark("odek:task");
  await using runtime = await cliRuntime(io, flags.layer);
  performance.mark("odek:runtime");
  const existing = flags.session
    ? (await runtime.sessions.list()).some((s) => s.id === flags.session)
    : false;
  if (existing) {
    // Lazy (src/_util/lazy_module.ts): a literal import() would load its graph with this one's.
    const { continueSession }: typeof import("./continue_command.ts") = await lazyModule(
      "cli/continue_command.ts",
    );
    return await continueSession(io, runtime, flags, flags.session!, task);
  }
  await using events = await openEventsSink(runtime, flags, io);
  performance.mark("odek:events");
  const operator = await terminalOperator(flags.yes);
  performance.mark("odek:operator");
  await using host = await runtime.openSession(
    { task, ...(flags.session ? { sessionId: flags.session } : {}) },
    {
      ...(flags.workspace !== undefined ? { workspace: flags.workspace } : {}),
      addDirs: flags.addDirs,
      ...(flags.system !== undefined ? { system: flags.system } : {}),
      ...(flags.record !== undefined ? { record: flags.record } : {}),
      ...(flags.replay !== undefined ? { replay: flags.replay } : {}),
      ...operator,
      tools: [...cliMcpTools(runtime, io, operator.clarifier), delegateTasks()],
    },
  );
  return await executeRun({ io, host, json: flags.json, events });
}

/**
 * The `--events-jsonl` sink, opened before the session so a bad path stops the run before
 * anything is written (never inside ODEK_HOME).
 */
export async function openEventsSink(
  runtime: Runtime,
  flags: RunFlags,
  io: CliIO,
): Promise<EventsJsonlSink | undefined> {
  if (!flags.eventsJsonl) return undefined;
  return await EventsJsonlSink.open(resolve(io.callerDir, flags.eventsJsonl), {
    refuseInside: runtime.paths.odekHome,
  });
}

/** The task from the positionals, `-` (stdin), or piped stdin. */
async function readTask(positionals: string[], io: CliIO): Promise<string> {
  let task = positionals.join(" ");
  if (task === "-" || (task === "" && !io.stdinIsTerminal)) task = await io.readStdin();
  task = task.trim();
  if (task === "") {
    throw new OdekError(
      "USAGE",
      'No task given: odek run "<task>" (or pipe it on stdin). Run "odek run --help".',
    );
  }
  return task;
}
