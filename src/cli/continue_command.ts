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
  resolveAddDirs,
  resolveWorkspace,
  type Settings,
} from "./compose.ts";
import { buildGate } from "./build_gate.ts";
import { contextOptionsFor } from "./context_options.ts";
import { resolve } from "node:path";
import { isPartialSummary } from "../loop/partial_summary.ts";
import { budgetsFromConfig } from "./budgets_from_config.ts";
import { EventsJsonlSink } from "./events_jsonl_sink.ts";
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
    if (baseUrl.startsWith("replay:") && !flags.replay) {
      throw new OdekError(
        "USAGE",
        `Session ${id} was answered from the cassette ${
          baseUrl.slice(7)
        }: continue it with --replay <cassette> or --base-url <url>.`,
      );
    }
    // Every check that can fail runs before anything is written to the session.
    const resolved = await resolveWorkspace(
      settings,
      flags.workspace ?? (flags.dedicatedWorkspace ? undefined : meta.workspace),
      io.callerDir,
      { dedicated: flags.dedicatedWorkspace },
    );
    const { workspace } = resolved;
    const addDirs = await resolveAddDirs(settings, flags.addDirs, io.callerDir);
    const modelClient = await buildModel(settings, {
      model,
      baseUrl,
      record: flags.record,
      replay: flags.replay,
      callerDir: io.callerDir,
    });
    const messages = [...session.messages];
    // A run stopped by its iteration budget ends with a partial summary: continuing it without a
    // message asks the model to go on.
    const next = message?.trim()
      ? { role: "user" as const, content: message.trim() }
      : isPartialSummary(messages.at(-1))
      ? { role: "user" as const, content: "[odek] Continue the task from where you stopped." }
      : undefined;
    const last = next ?? messages.at(-1);
    if (
      !last || (last.role === "assistant" && !last.tool_calls?.length) || last.role === "system"
    ) {
      throw new OdekError(
        "USAGE",
        `Session ${id} has nothing left to do (its last turn is a final answer): give it a message, e.g. odek continue ${id} "next step".`,
      );
    }
    const gate = await buildGate(settings, resolved, flags.yes, addDirs.granted);
    const events = flags.eventsJsonl
      ? await EventsJsonlSink.open(resolve(io.callerDir, flags.eventsJsonl), {
        refuseInside: settings.paths.odekHome,
      })
      : undefined;
    const { broker } = await buildBroker(settings, resolved, io, addDirs.parsed).catch(
      async (error) => {
        await events?.close();
        throw error;
      },
    );
    const patch = {
      ...(model !== meta.model ? { model } : {}),
      ...(baseUrl !== meta.baseUrl && !flags.replay ? { baseUrl } : {}),
      ...(workspace !== meta.workspace ? { workspace } : {}),
    };
    try {
      if (Object.keys(patch).length > 0) await session.updateMeta(patch);
      if (next) {
        await session.append(next);
        messages.push(next);
      }
    } catch (error) {
      await broker.close();
      await events?.close();
      throw error;
    }
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
      toolOutput: settings.config.toolOutput,
      resumed: true,
      gate,
      context: contextOptionsFor(settings.config, model),
      budgets: budgetsFromConfig(settings.config, model),
      events,
    });
  } finally {
    await session.close();
  }
}
