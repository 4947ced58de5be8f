/**
 * `odek continue [session] ["message"]`: resume the newest or the named session.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { executeRun } from "./execute_run.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { parseRunFlags, type RunFlags } from "./parse_run_flags.ts";
import { elsewhereNote, newestSessionHere } from "./pick_session.ts";
import { openEventsSink } from "./run_command.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { delegateTasks } from "../runtime/subagents/delegate_tasks.ts";
import { interruptedSubagents } from "../runtime/subagents/subagent_sessions.ts";
import { cliMcpTools } from "./cli_mcp_tools.ts";
import { terminalOperator } from "./terminal_operator.ts";
import { canChat, chat, oneShotFlag } from "./chat_command.ts";

/**
 * Run `odek continue` with its arguments. With two positionals they are the session and the
 * message; with one, it is the session when a session has that id, else the message for the
 * newest session of the current workspace (`--workspace`, else the caller's directory).
 *
 * @returns the exit code
 * @throws {OdekError} `USAGE`, `SESSION_NOT_FOUND`, `SESSION_LOCKED`, and the composition errors.
 */
export async function continueCommand(args: string[], io: CliIO): Promise<number> {
  const flags = parseRunFlags(args, "continue");
  if (flags.help) {
    io.stdout.write(`${HELP_TEXT.continue}\n`);
    return EXIT.ok;
  }
  if (flags.positionals.length > 2) {
    throw new OdekError(
      "USAGE",
      'Too many arguments: odek continue [session] ["message"]. Quote the message.',
    );
  }
  await using runtime = await cliRuntime(io, flags.layer);
  const ids = new Set((await runtime.sessions.list()).map((s) => s.id));
  let [id, message] = flags.positionals as (string | undefined)[];
  if (flags.positionals.length === 1 && !ids.has(id!)) {
    // One word that could be a session name is a session reference (a typo must not become a
    // message to the newest session); a message with spaces is a message.
    if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id!)) {
      throw new OdekError(
        "SESSION_NOT_FOUND",
        `No session named "${id}": see odek sessions list. To send a one-word message to the newest session, quote it with a second argument: odek continue <session> "${id}".`,
      );
    }
    [id, message] = [undefined, id];
  }
  // Without an id: the newest session of this workspace, never another project's.
  id ??= await newestSessionHere(runtime, flags.workspace ?? io.callerDir, "continue");
  // At a terminal the session stays open for more messages, unless a one-shot flag says not to.
  if (!flags.print && canChat(io) && oneShotFlag(flags) === undefined) {
    return await chat(io, runtime, flags, {
      sessionId: id,
      ...(message !== undefined ? { message } : {}),
    });
  }
  return await continueSession(io, runtime, flags, id, message);
}

/**
 * Open a session's host (lock, load, repair) and run it on, with the recorded workspace, model
 * and base URL unless flags override them. Shared with `odek run --session <existing>`.
 */
export async function continueSession(
  io: CliIO,
  runtime: Runtime,
  flags: RunFlags,
  id: string,
  message: string | undefined,
): Promise<number> {
  const operator = await terminalOperator(flags.yes);
  await using host = await runtime.openSession({ sessionId: id }, {
    ...(flags.workspace !== undefined ? { workspace: flags.workspace } : {}),
    dedicatedWorkspace: flags.dedicatedWorkspace,
    addDirs: flags.addDirs,
    ...(flags.layer.model !== undefined ? { model: flags.layer.model } : {}),
    ...(flags.layer.baseUrl !== undefined ? { baseUrl: flags.layer.baseUrl } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    ...(flags.replay !== undefined ? { replay: flags.replay } : {}),
    ...operator,
    tools: [...cliMcpTools(runtime, io, operator.clarifier), delegateTasks()],
  });
  // Said first: a session that works in another directory must never edit it unannounced.
  const note = await elsewhereNote(host.workspace, io.callerDir, id);
  if (note) io.stderr.write(`${note}\n`);
  // Sub-agents that were running when the session stopped (issue 21): said, never re-run.
  for (const child of await interruptedSubagents(runtime.sessions, host.sessionId, host.messages)) {
    const partial = child.partial ? terminalSafe(child.partial.slice(0, 300), true) : "nothing yet";
    io.stderr.write(
      `odek: sub-agent ${child.sessionId} (${
        terminalSafe(JSON.stringify(child.title), true)
      }) was interrupted when the session stopped; its last text: ${partial}. Resume it by hand with: odek continue ${child.sessionId}\n`,
    );
  }
  // An existing session is not written to before its run starts: the sink can come second.
  await using events = await openEventsSink(runtime, flags, io);
  return await executeRun({
    io,
    host,
    json: flags.json,
    events,
    ...(message !== undefined ? { message } : {}),
  });
}
