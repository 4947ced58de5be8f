/**
 * `odek undo [session]` and `odek rewind [session] [--to <turn>]`: take a session back to before
 * its last turn, or any turn — files, conversation, or both. The runtime does the work
 * (`runtime.rewind`); this file picks the session, asks about files changed outside odek, and
 * renders.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { askTerminalChoice } from "../approval/terminal_choice.ts";
import type { ConflictAnswer, RewindOutcome, Turn } from "../runtime/rewind_session.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { elsewhereNote, newestSessionHere } from "./pick_session.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { terminalSafeJson } from "./terminal_safe_json.ts";

/**
 * Run `odek undo` or `odek rewind` with its arguments.
 *
 * @returns the exit code (1 when files changed outside odek and nobody agreed to a restore)
 * @throws {OdekError} `USAGE`, `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `CHECKPOINT_UNAVAILABLE`,
 *   `RESTORE_CONFLICT`
 */
export async function rewindCommand(
  command: "undo" | "rewind",
  args: string[],
  io: CliIO,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        to: { type: "string" },
        files: { type: "boolean" },
        conversation: { type: "boolean" },
        "keep-changed": { type: "boolean" },
        overwrite: { type: "boolean" },
        workspace: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw flagError(error, command);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${HELP_TEXT[command]}\n`);
    return EXIT.ok;
  }
  if (positionals.length > 1) {
    throw new OdekError(
      "USAGE",
      `Too many arguments: odek ${command} [session]. Run "odek ${command} --help".`,
    );
  }
  if (values.to !== undefined && command === "undo") {
    throw new OdekError(
      "USAGE",
      "odek undo takes back the last turn: for another, use odek rewind --to <turn>.",
    );
  }
  if (values["keep-changed"] && values.overwrite) {
    throw new OdekError(
      "USAGE",
      "--keep-changed and --overwrite contradict each other: choose one.",
    );
  }
  const turn = values.to === undefined ? undefined : Number(values.to);
  if (turn !== undefined && (!Number.isInteger(turn) || turn < 1)) {
    throw new OdekError(
      "USAGE",
      `--to needs a turn number (1, 2, …), got "${values.to}". See odek rewind.`,
    );
  }
  await using runtime = await cliRuntime(io);
  const id = positionals[0] ??
    await newestSessionHere(runtime, values.workspace ?? io.callerDir, command);
  if (command === "rewind" && turn === undefined) {
    return await listTurns(io, id, await runtime.turns(id), values.json === true);
  }
  const only = values.files && !values.conversation
    ? { conversation: false }
    : values.conversation && !values.files
    ? { files: false }
    : {};
  const outcome = await runtime.rewind(id, {
    ...(turn !== undefined ? { turn } : {}),
    ...only,
    onConflict: (paths) => conflictAnswer(paths, values, io),
  }, values.workspace !== undefined ? { workspace: values.workspace } : {});
  if (values.json) {
    io.stdout.write(`${terminalSafeJson({ session: id, ...outcome })}\n`);
    return EXIT.ok;
  }
  const note = await elsewhereNote(outcome.workspace, io.callerDir, id);
  if (note) io.stderr.write(`${note}\n`);
  io.stderr.write(renderRewind(command, id, outcome).map((line) => `${line}\n`).join(""));
  return EXIT.ok;
}

async function conflictAnswer(
  paths: readonly string[],
  flags: { "keep-changed"?: boolean; overwrite?: boolean },
  io: CliIO,
): Promise<ConflictAnswer> {
  if (flags.overwrite) return "overwrite";
  if (flags["keep-changed"]) return "keep";
  const shown = paths.slice(0, 20).map((p) => `  ${terminalSafe(p, true)}\n`).join("");
  const more = paths.length > 20 ? `  … and ${paths.length - 20} more\n` : "";
  io.stderr.write(
    `odek: these files changed outside odek since its last checkpoint, and restoring would overwrite them:\n${shown}${more}`,
  );
  const { value } = await askTerminalChoice(
    "Overwrite them (o), keep them and restore the rest (k), or cancel (c)?",
    { o: "overwrite", k: "keep", c: "cancel" },
    "cancel",
  );
  return value;
}

function listTurns(io: CliIO, id: string, turns: Turn[], json: boolean): number {
  if (json) {
    io.stdout.write(`${terminalSafeJson({ session: id, turns })}\n`);
    return EXIT.ok;
  }
  if (turns.length === 0) {
    io.stdout.write(`Session ${id} has no turn to go back to.\n`);
    return EXIT.ok;
  }
  io.stdout.write(`Turns of session ${id} (a rewind goes back to before the turn):\n`);
  for (const t of turns) {
    const files = t.checkpoint
      ? `files: checkpoint ${t.checkpoint.slice(0, 10)}`
      : "files: unchanged since";
    io.stdout.write(
      `  ${String(t.turn).padStart(3)}  ${files.padEnd(30)}  ${terminalSafe(t.text, true)}\n`,
    );
  }
  io.stdout.write(
    `Rewind with: odek rewind ${id} --to <turn> (both), with --files or --conversation for one of them.\n`,
  );
  return EXIT.ok;
}

/** The lines that say what a rewind (or an undo) did, for `odek undo` and the interactive `/undo`. */
export function renderRewind(
  command: "undo" | "rewind",
  id: string,
  outcome: RewindOutcome,
): string[] {
  const safe = (text: string) => terminalSafe(text, true);
  const { turn, files, conversation } = outcome;
  const lines = [
    `odek: ${
      command === "undo" ? "undid" : "rewound to before"
    } turn ${turn.turn} of session ${id}: "${safe(turn.text)}"`,
  ];
  if (files) {
    const n = files.written.length + files.deleted.length;
    lines.push(
      `  files: ${n} restored to checkpoint ${
        files.checkpoint.slice(0, 10)
      }; the files as they were are kept in checkpoint ${files.saved.slice(0, 10)}`,
    );
    for (const path of files.written.slice(0, 30)) lines.push(`    restored  ${safe(path)}`);
    for (const path of files.deleted.slice(0, 30)) {
      lines.push(`    deleted   ${safe(path)} (made after the checkpoint)`);
    }
    if (files.written.length > 30 || files.deleted.length > 30) lines.push("    …");
    if (files.conflictAnswer === "keep") {
      lines.push(`  kept as you changed them: ${files.conflicts.map(safe).join(", ")}`);
    } else if (files.conflictAnswer === "overwrite") {
      lines.push(
        `  overwritten although changed outside odek: ${files.conflicts.map(safe).join(", ")}`,
      );
    }
    if (files.protected.length > 0) {
      lines.push(
        `  protected, never restored (check them): ${files.protected.map(safe).join(", ")}`,
      );
    }
    for (const s of files.skipped) lines.push(`  not restored: ${safe(s.path)}: ${safe(s.reason)}`);
    if (files.notRestorable.length > 0) {
      const shown = files.notRestorable.slice(0, 20).map((n) => `${safe(n.path)} (${n.change})`);
      const why = files.notRestorable.every((n) => n.reason === "ignored")
        ? ".gitignore'd, so never checkpointed"
        : "not checkpointed (.gitignore'd, too large or unreadable)";
      lines.push(
        `  not restorable, left as they are (${why}): ${shown.join(", ")}${
          files.notRestorable.length > 20 ? `, and ${files.notRestorable.length - 20} more` : ""
        }`,
      );
    }
  } else if (outcome.filesNote) {
    lines.push(`  files: none to restore (${outcome.filesNote})`);
  }
  if (conversation) {
    lines.push(
      `  conversation: the next request leaves out ${conversation.removed} message(s) from turn ${turn.turn} on (the journal keeps them); continue with odek continue ${id} "<message>"`,
    );
  }
  return lines;
}
