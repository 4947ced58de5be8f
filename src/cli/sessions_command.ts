/**
 * `odek sessions list|show|export|delete`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { ChatMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { SessionRewind, SessionSummary } from "../session/session_store.ts";
import { flagError } from "./flag_error.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { connectQueue } from "./connect_queue.ts";
import { EXIT } from "./exit_code.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { terminalSafeJson } from "./terminal_safe_json.ts";
import { HELP_TEXT } from "./help_text.ts";

/**
 * Run `odek sessions` with its arguments.
 *
 * @returns the exit code
 * @throws {OdekError} `USAGE`, `SESSION_NOT_FOUND`, `SESSION_LOCKED` (delete of a running one).
 */
export async function sessionsCommand(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        help: { type: "boolean", short: "h" },
        queue: { type: "string" },
        json: { type: "boolean" },
        workspace: { type: "string" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw flagError(error, "sessions");
  }
  const [action, id, ...rest] = parsed.positionals;
  if (parsed.values.help || action === undefined) {
    io.stdout.write(`${HELP_TEXT.sessions}\n`);
    return parsed.values.help ? EXIT.ok : EXIT.usage;
  }
  if (rest.length > 0) {
    throw new OdekError("USAGE", `Unexpected argument "${rest[0]}". Run "odek sessions --help".`);
  }
  // --queue: the sessions of a durable queue's database, from any machine (docs/scale_out.md).
  await using queue = parsed.values.queue ? await connectQueue(parsed.values.queue) : undefined;
  await using runtime = await cliRuntime(io, {}, queue?.sessions);
  const store = runtime.sessions;
  const needId = () => {
    if (!id) {
      throw new OdekError(
        "USAGE",
        `odek sessions ${action} needs a session id: see odek sessions list.`,
      );
    }
    return id;
  };
  switch (action) {
    case "list": {
      const only = parsed.values.workspace;
      const where = only === undefined ? undefined : await Deno.realPath(only).catch(() => only);
      const sessions = (await store.list()).filter((s) =>
        where === undefined || s.workspace === where
      );
      if (parsed.values.json) {
        io.stdout.write(`${terminalSafeJson(sessions, 0)}\n`);
        return EXIT.ok;
      }
      if (sessions.length === 0) {
        io.stdout.write(
          where === undefined
            ? 'No sessions yet. Start one with: odek run "<task>"\n'
            : `${terminalSafe(`No session works in ${where}.`, true)}\n`,
        );
        return EXIT.ok;
      }
      for (const s of sessions) io.stdout.write(`${listLine(s)}\n`);
      return EXIT.ok;
    }
    case "show": {
      const target = id ?? (await store.latest());
      if (!target) {
        io.stdout.write('No sessions yet. Start one with: odek run "<task>"\n');
        return EXIT.ok;
      }
      const { meta, messages, rewinds } = await store.read(target);
      io.stdout.write(
        terminalSafe(
          `session ${meta.id} · created ${meta.createdAt} · model ${meta.model} · ${meta.baseUrl}\nworkspace ${meta.workspace}`,
        ) + "\n\n",
      );
      // Session text came from the model and from tools: print it neutralised.
      let next = 0;
      const showRewinds = (until: number) => {
        while (next < rewinds.length && rewinds[next].afterMessage <= until) {
          io.stdout.write(`${terminalSafe(renderRewind(rewinds[next]))}\n\n`);
          next++;
        }
      };
      messages.forEach((message, index) => {
        showRewinds(index);
        io.stdout.write(`${terminalSafe(renderMessage(message))}\n\n`);
      });
      showRewinds(Infinity);
      return EXIT.ok;
    }
    case "export": {
      const { meta, messages, rewinds } = await store.read(needId());
      io.stdout.write(
        `${terminalSafeJson({ schema: "odek.session-export/v1", meta, messages, rewinds }, 2)}\n`,
      );
      return EXIT.ok;
    }
    case "delete":
      await store.delete(needId());
      io.stderr.write(`odek: deleted session ${id}\n`);
      return EXIT.ok;
    default:
      throw new OdekError(
        "USAGE",
        `Unknown sessions action "${action}": use list, show, export or delete.`,
      );
  }
}

/** One session of `list`: id, last change, counts, title, state, workspace. */
function listLine(s: SessionSummary): string {
  const state = s.problem ? `problem: ${s.problem}` : s.locked ? "running" : "";
  return `${s.id}  ${s.updatedAt.slice(0, 19).replace("T", " ")}  ${
    String(s.messageCount).padStart(4)
  } msgs  ${String(s.toolCallCount).padStart(3)} tools  ${terminalSafe(s.title, true)}${
    state ? `  [${terminalSafe(state, true)}]` : ""
  }${s.workspace ? `  in ${terminalSafe(s.workspace, true)}` : ""}`;
}

/** A rewind record as `show` prints it, where it happened in the journal. */
function renderRewind(rewind: SessionRewind): string {
  const { record } = rewind;
  const parts = [`── rewind (${rewind.at}) ── back to before turn ${record.turn}`];
  if (record.conversation) {
    parts.push(
      `conversation: later requests keep the first ${record.keep} message(s); those after them stay in this journal (shown above)`,
    );
  }
  if (record.files) {
    const { to, saved, written, deleted, kept } = record.files;
    parts.push(
      `files: restored to checkpoint ${to.slice(0, 10)} (${written} written, ${deleted} deleted)${
        saved ? `; the files as they were are in checkpoint ${saved.slice(0, 10)}` : ""
      }${kept.length > 0 ? `; not restored: ${kept.join(", ")}` : ""}`,
    );
  }
  return parts.join("\n");
}

function renderMessage(message: ChatMessage): string {
  switch (message.role) {
    case "system":
      return `── system ──\n${message.content}`;
    case "user":
      return `── user ──\n${message.content}`;
    case "assistant": {
      const calls = (message.tool_calls ?? []).map((c) =>
        `→ ${c.function.name} [${c.id}] ${c.function.arguments}`
      );
      return [`── assistant ──`, message.content ?? "", ...calls].filter((l) => l !== "").join(
        "\n",
      );
    }
    case "tool":
      return `── tool result [${message.tool_call_id}] ──\n${message.content}`;
    default: {
      const unreachable: never = message;
      throw new TypeError(`Unknown message: ${JSON.stringify(unreachable)}`);
    }
  }
}
