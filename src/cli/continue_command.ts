/**
 * `odek continue [session] ["message"]`: resume the newest or the named session.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { CliIO } from "./cli_io.ts";
import {
  buildBroker,
  buildModel,
  loadSettings,
  resolveWorkspace,
  type Settings,
} from "./compose.ts";
import { executeRun } from "./execute_run.ts";
import { EXIT } from "./exit_code.ts";
import { HELP_TEXT } from "./help_text.ts";
import { parseRunFlags, type RunFlags } from "./parse_run_flags.ts";

/**
 * Run `odek continue` with its arguments. With two positionals they are the session and the
 * message; with one, it is the session when a session has that id, else the message for the
 * newest session.
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
  const settings = await loadSettings(io, flags.layer);
  const ids = new Set((await settings.store.list()).map((s) => s.id));
  let [id, message] = flags.positionals as (string | undefined)[];
  if (flags.positionals.length === 1 && !ids.has(id!)) [id, message] = [undefined, id];
  id ??= await settings.store.latest();
  if (!id) {
    throw new OdekError(
      "SESSION_NOT_FOUND",
      'There is no session to continue: start one with odek run "<task>".',
    );
  }
  return continueSession(io, settings, flags, id, message);
}

/**
 * Open a session (lock, load, repair) and run it on, with the recorded workspace, model and base
 * URL unless flags override them. Shared with `odek run --session <existing>`.
 */
export async function continueSession(
  io: CliIO,
  settings: Settings,
  flags: RunFlags,
  id: string,
  message: string | undefined,
): Promise<number> {
  const session = await settings.store.open(id);
  try {
    const meta = session.meta;
    const model = flags.layer.model ?? meta.model;
    const baseUrl = flags.layer.baseUrl ?? meta.baseUrl;
    const { workspace, protectedRoots } = await resolveWorkspace(
      settings,
      flags.workspace ?? meta.workspace,
      io.callerDir,
    );
    const patch = {
      ...(model !== meta.model ? { model } : {}),
      ...(baseUrl !== meta.baseUrl ? { baseUrl } : {}),
      ...(workspace !== meta.workspace ? { workspace } : {}),
    };
    if (Object.keys(patch).length > 0) await session.updateMeta(patch);
    const messages = [...session.messages];
    if (message !== undefined && message.trim() !== "") {
      const user = { role: "user" as const, content: message.trim() };
      await session.append(user);
      messages.push(user);
    }
    const last = messages.at(-1);
    if (
      !last || (last.role === "assistant" && !last.tool_calls?.length) || last.role === "system"
    ) {
      throw new OdekError(
        "USAGE",
        `Session ${id} has nothing left to do (its last turn is a final answer): give it a message, e.g. odek continue ${id} "next step".`,
      );
    }
    const modelClient = await buildModel(settings, {
      model,
      baseUrl,
      record: flags.record,
      replay: flags.replay,
      callerDir: io.callerDir,
    });
    const { broker } = await buildBroker(settings, workspace, protectedRoots, io);
    return await executeRun({
      io,
      session,
      messages,
      model: modelClient,
      broker,
      json: flags.json,
      maxIterations: settings.config.budgets.maxIterations,
      maxToolParallel: settings.config.budgets.maxToolParallel,
      sandbox: settings.config.sandbox,
      redact: settings.redact,
      resumed: true,
    });
  } finally {
    await session.close();
  }
}
