/**
 * `odek run "<task>"`: start a new run, or continue a named session with `--session`.
 *
 * @module
 */
import { resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { initialMessages, readAgentsMd } from "../loop/initial_messages.ts";
import type { CliIO } from "./cli_io.ts";
import {
  buildBroker,
  buildModel,
  loadSettings,
  resolveAddDirs,
  resolveWorkspace,
} from "./compose.ts";
import { buildGate } from "./build_gate.ts";
import { contextOptionsFor } from "./context_options.ts";
import { budgetsFromConfig } from "./budgets_from_config.ts";
import { EventsJsonlSink } from "./events_jsonl_sink.ts";
import { executeRun } from "./execute_run.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { parseRunFlags } from "./parse_run_flags.ts";

/**
 * Run `odek run` with its arguments (after the word `run`).
 *
 * @returns the exit code
 * @throws {OdekError} `USAGE` for bad flags or a missing task; configuration, workspace, key and
 *   session errors from the composition root.
 */
export async function runCommand(args: string[], io: CliIO): Promise<number> {
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
  const settings = await loadSettings(io, flags.layer);
  const { config, store } = settings;
  const existing = flags.session ? (await store.list()).some((s) => s.id === flags.session) : false;
  if (existing) {
    const { continueSession } = await import("./continue_command.ts");
    return continueSession(io, settings, flags, flags.session!, task);
  }
  const resolved = await resolveWorkspace(settings, flags.workspace, io.callerDir, {
    dedicated: config.dedicatedWorkspace,
  });
  const { workspace } = resolved;
  const addDirs = await resolveAddDirs(settings, flags.addDirs, io.callerDir);
  const model = await buildModel(settings, {
    model: config.model,
    baseUrl: config.baseUrl,
    record: flags.record,
    replay: flags.replay,
    callerDir: io.callerDir,
  });
  const gate = await buildGate(settings, resolved, flags.yes, addDirs.granted);
  const events = flags.eventsJsonl
    ? await EventsJsonlSink.open(resolve(io.callerDir, flags.eventsJsonl), {
      refuseInside: settings.paths.odekHome,
    })
    : undefined;
  const { broker, bwrapMissing, dockerMissing } = await buildBroker(
    settings,
    resolved,
    io,
    addDirs.parsed,
  );
  if (dockerMissing) {
    io.stderr.write(
      'odek: sandbox is "docker" but the docker client is not installed, so the shell tool is disabled. Install Docker, or set "sandbox" to "bwrap" (see odek doctor)\n',
    );
  }
  if (bwrapMissing) {
    io.stderr.write(
      'odek: bwrap is not installed, so the shell tool is disabled. Install it with: apt-get install bubblewrap (or set "sandbox" to "docker" or "none"; see odek doctor)\n',
    );
  }
  const session = await store.create({
    ...(flags.session ? { id: flags.session } : {}),
    workspace,
    model: config.model,
    // A replayed run never talks to the configured endpoint: record where its answers came from.
    baseUrl: flags.replay ? `replay:${resolve(io.callerDir, flags.replay)}` : config.baseUrl,
    title: task,
  }).catch(async (error) => {
    await broker.close();
    await events?.close();
    throw error;
  });
  const messages = initialMessages({
    task,
    system: flags.system,
    agentsMd: await readAgentsMd(workspace),
    workspace,
    sandbox: config.sandbox,
    addDirs: addDirs.granted,
  });
  for (const message of messages) await session.append(message);
  return executeRun({
    io,
    session,
    messages,
    model,
    broker,
    json: flags.json,
    maxIterations: config.budgets.maxIterations,
    maxToolParallel: config.budgets.maxToolParallel,
    sandbox: config.sandbox,
    redact: settings.redact,
    toolOutput: config.toolOutput,
    resumed: false,
    gate,
    context: contextOptionsFor(config, config.model),
    budgets: budgetsFromConfig(config, config.model),
    events,
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
