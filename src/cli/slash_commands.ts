/**
 * The interactive session's slash commands: `/help`, `/status`, `/model`, `/trust`, `/diff`,
 * `/undo`, `/rewind`, `/new`, `/sessions`, `/resume`, `/exit`.
 *
 * @module
 */
import type { ConflictAnswer } from "../runtime/rewind_session.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { ChatSession } from "./chat_session.ts";
import { bannerLines } from "./_event_text.ts";
import { counts, fileBody } from "./_tool_lines.ts";
import { readLine } from "./line_editor.ts";
import { renderRewind } from "./rewind_command.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** Each command with its arguments and what it does (for `/help` and completion). */
export const SLASH_COMMANDS: readonly { name: string; args: string; summary: string }[] = [
  { name: "/help", args: "", summary: "these commands and the keys" },
  {
    name: "/status",
    args: "",
    summary: "model, endpoint, workspace, trust, session, tokens so far, sandbox",
  },
  { name: "/model", args: "[name]", summary: "list the provider's models, or switch to one" },
  { name: "/trust", args: "[level]", summary: "show the trust level, or change it (up to config)" },
  { name: "/diff", args: "", summary: "what this session changed in the workspace" },
  { name: "/undo", args: "", summary: "take back the last turn: its files and its messages" },
  { name: "/rewind", args: "[turn]", summary: "go back to before a turn (a picker without one)" },
  {
    name: "/compact",
    args: "",
    summary: "fold the earlier turns into a summary, sent with your next message",
  },
  { name: "/new", args: "", summary: "end this session; the next message starts a new one" },
  { name: "/sessions", args: "", summary: "the sessions of this workspace" },
  { name: "/resume", args: "[id]", summary: "switch to another session (a picker without one)" },
  { name: "/exit", args: "", summary: "leave (also /quit, Ctrl-D, Ctrl-C twice)" },
];

const KEYS_HELP = [
  "Enter sends · Alt-Enter, Ctrl-J or a line ending in \\ adds a line · a paste keeps its lines",
  "Up/Down: history · Tab: complete a command · Esc: clear the input, or interrupt a run",
  "Ctrl-C: interrupt a run (twice: leave) · Ctrl-D on an empty line: leave",
];

const TRUST_RANK: Record<TrustLevel, number> = { untrusted: 0, standard: 1, trusted: 2 };

/**
 * The commands that complete `text` (Tab), or none once it holds a space.
 *
 * @example
 * ```ts
 * import { completeSlash } from "./slash_commands.ts";
 * if (completeSlash("/re").join(" ") !== "/rewind /resume") throw new Error("completion");
 * ```
 */
export function completeSlash(text: string): string[] {
  if (!text.startsWith("/") || /\s/.test(text)) return [];
  const names = [...SLASH_COMMANDS.map((c) => c.name), "/quit"];
  return names.filter((name) => name.startsWith(text));
}

/**
 * Run one slash command line.
 *
 * @throws what the runtime throws (shown by the session, which goes on)
 */
export async function runSlashCommand(session: ChatSession, line: string): Promise<void> {
  const [name, ...rest] = line.trim().split(/\s+/);
  const arg = rest.join(" ");
  const say = (text: string) => session.out.write(`${text}\n`);
  const host = session.host;
  switch (name) {
    case "/help":
      for (const c of SLASH_COMMANDS) say(`  ${`${c.name} ${c.args}`.padEnd(18)} ${c.summary}`);
      for (const k of KEYS_HELP) session.note(k);
      return;
    case "/exit":
    case "/quit":
      session.leave();
      return;
    case "/status":
      return status(session);
    case "/model":
      return await model(session, arg);
    case "/trust":
      return await trust(session, arg);
    case "/diff": {
      if (!host) return session.note("no session yet: nothing changed");
      if (host.checkpointsOff) session.note(`checkpoints are off: ${host.checkpointsOff}`);
      const files = await host.changes({ withDiff: true, maxDiffLines: 200 });
      if (files.length === 0) return session.note("this session changed no file");
      for (const file of files) {
        say(`± ${terminalSafe(file.path, true)} (${file.change}) ${counts(file)}`);
        for (const l of fileBody(file)) say(`  │ ${terminalSafe(l, true)}`);
      }
      return;
    }
    case "/undo":
    case "/rewind": {
      if (!host) return session.note("no session yet: nothing to take back");
      const turns = host.turns();
      if (turns.length === 0) return session.note("this session has no turn to go back to");
      let turn: number | undefined;
      if (name === "/rewind") {
        turn = arg !== "" ? Number(arg) : await pick(
          session,
          turns.map((t) => `${t.checkpoint ? "files+messages" : "messages"}  ${t.text}`),
          "rewind to before turn",
        );
        if (turn === undefined) return;
        if (!turns.some((t) => t.turn === turn)) {
          return session.note(`no turn ${arg}: the turns are 1 to ${turns.length}`);
        }
      }
      const outcome = await host.rewind({
        ...(turn !== undefined ? { turn } : {}),
        onConflict: (paths) => conflict(session, paths),
      });
      const lines = renderRewind(name === "/undo" ? "undo" : "rewind", host.sessionId, outcome);
      for (const l of lines) say(l.replace(/; continue with odek continue .*$/, ""));
      return;
    }
    case "/compact": {
      if (!host) return session.note("no session yet: nothing to compact");
      if (!host.config.context.compaction) {
        return session.note(
          "compaction is off (context.compaction): the earlier turns would be dropped without a summary; not done",
        );
      }
      const turns = session.compactNext();
      session.note(
        `your next message starts by folding the ${turns} earlier turn(s) into a summary (the journal keeps them all)`,
      );
      return;
    }
    case "/new":
      await session.closeHost();
      session.note("session closed: your next message starts a new one");
      return;
    case "/sessions":
      return await sessions(session);
    case "/resume":
      return await resume(session, arg);
    default:
      session.note(`unknown command ${terminalSafe(name, true)}: /help lists them`);
  }
}

function status(session: ChatSession): void {
  const host = session.host;
  const say = (text: string) => session.out.write(`${text}\n`);
  if (!host) {
    say(`no session yet: the next message starts one in ${terminalSafe(session.io.callerDir)}`);
    say(
      `model ${session.choice.model ?? session.runtime.config.model} · trust ${
        session.choice.trust ?? session.runtime.config.trustLevel
      }`,
    );
    return;
  }
  const meta = host.meta;
  say(`model      ${terminalSafe(meta.model, true)}`);
  say(`base URL   ${terminalSafe(meta.baseUrl, true)}`);
  say(`workspace  ${terminalSafe(host.workspace, true)}`);
  say(`trust      ${host.trust} (config allows up to ${session.runtime.config.trustLevel})`);
  say(`session    ${host.sessionId}`);
  const s = session.spent;
  say(
    `spent      ${s.inputTokens} in / ${s.outputTokens} out tokens, ${s.toolCalls} tool call(s) in ${s.runs} run(s) here${
      cost(session)
    }`,
  );
  if (session.banner) {
    say(`sandbox    ${bannerLines(session.banner, host.sessionId)[0][3].replace(/^sandbox /, "")}`);
  }
  if (host.checkpointsOff) say(`checkpoints off: ${terminalSafe(host.checkpointsOff, true)}`);
  for (const warning of host.warnings) say(`warning    ${terminalSafe(warning, true)}`);
}

function cost(session: ChatSession): string {
  const model = session.host?.meta.model ?? "";
  const prices = session.runtime.config.models?.[model];
  if (prices?.inputCostPerMillionUsd === undefined || !prices.outputCostPerMillionUsd) return "";
  const usd = (session.spent.inputTokens * prices.inputCostPerMillionUsd +
    session.spent.outputTokens * prices.outputCostPerMillionUsd) / 1e6;
  return ` ≈ $${usd.toFixed(4)}`;
}

async function model(session: ChatSession, name: string): Promise<void> {
  const host = session.host;
  const current = host?.meta.model ?? session.choice.model ?? session.runtime.config.model;
  if (name === "") {
    const listed = await session.runtime.listModels(
      host ? { baseUrl: host.meta.baseUrl } : {},
    );
    for (const m of listed) {
      session.out.write(`${m.id === current ? "*" : " "} ${terminalSafe(m.id, true)}\n`);
    }
    session.note(`now: ${terminalSafe(current, true)} · switch with /model <name>`);
    return;
  }
  if (host) await session.open({ sessionId: host.sessionId }, { model: name });
  else session.choose({ model: name });
  session.note(
    `model ${terminalSafe(name, true)} for the next turns${reopened(host !== undefined)}`,
  );
}

async function trust(session: ChatSession, level: string): Promise<void> {
  const host = session.host;
  const max = session.runtime.config.trustLevel;
  if (level === "") {
    session.note(
      `trust ${
        host?.trust ?? session.choice.trust ?? max
      } (config allows up to ${max}); change with /trust untrusted|standard|trusted`,
    );
    return;
  }
  if (!Object.hasOwn(TRUST_RANK, level)) {
    session.note(
      `trust levels are untrusted, standard and trusted, not ${terminalSafe(level, true)}`,
    );
    return;
  }
  if (TRUST_RANK[level as TrustLevel] > TRUST_RANK[max]) {
    session.note(
      `refused: your configuration allows up to ${max} (set trustLevel in ODEK_HOME/config.jsonc, or start with --trust)`,
    );
    return;
  }
  if (host) await session.open({ sessionId: host.sessionId }, { trust: level as TrustLevel });
  else session.choose({ trust: level as TrustLevel });
  session.note(`trust ${level} for the next turns${reopened(host !== undefined)}`);
}

function reopened(had: boolean): string {
  return had
    ? ' (the session host was opened again: background jobs and "always" approvals ended)'
    : "";
}

async function sessions(session: ChatSession): Promise<void> {
  const workspace = session.host?.workspace ?? session.flags.workspace ?? session.io.callerDir;
  const { here, elsewhere } = await session.runtime.sessionsOf(workspace);
  if (here.length === 0) session.note("no session in this workspace yet");
  for (const s of here.slice(0, 20)) {
    const mark = s.id === session.host?.sessionId ? "*" : " ";
    session.out.write(
      `${mark} ${s.id}  ${s.updatedAt.slice(0, 16).replace("T", " ")}  ${
        terminalSafe(s.title, true).slice(0, 60)
      }\n`,
    );
  }
  if (elsewhere.length > 0) session.note(`(${elsewhere.length} in other workspaces)`);
}

async function resume(session: ChatSession, id: string): Promise<void> {
  if (id === "") {
    const workspace = session.host?.workspace ?? session.flags.workspace ?? session.io.callerDir;
    const { here } = await session.runtime.sessionsOf(workspace);
    const others = here.filter((s) => s.id !== session.host?.sessionId).slice(0, 20);
    if (others.length === 0) return session.note("no other session in this workspace");
    const n = await pick(
      session,
      others.map((s) => `${s.id}  ${s.title.slice(0, 60)}`),
      "resume session",
    );
    if (n === undefined) return;
    id = others[n - 1].id;
  }
  await session.open({ sessionId: id });
}

/** A numbered list and a line for the number; `undefined` when the operator just presses Enter. */
async function pick(
  session: ChatSession,
  items: string[],
  what: string,
): Promise<number | undefined> {
  items.forEach((item, i) =>
    session.out.write(`  ${String(i + 1).padStart(3)}  ${terminalSafe(item, true)}\n`)
  );
  const result = await readLine(session.keys, session.out, {
    prompt: `${what} (1-${items.length}, Enter to cancel): `,
    columns: session.columns,
  });
  if (result.type !== "submit" || result.text.trim() === "") return undefined;
  const n = Number(result.text.trim());
  if (!Number.isInteger(n) || n < 1 || n > items.length) {
    session.note(`not a number from 1 to ${items.length}`);
    return undefined;
  }
  return n;
}

async function conflict(session: ChatSession, paths: readonly string[]): Promise<ConflictAnswer> {
  session.out.write("These files changed outside odek, and going back would overwrite them:\n");
  for (const p of paths.slice(0, 20)) session.out.write(`  ${terminalSafe(p, true)}\n`);
  session.out.write("o = overwrite them, k = keep them and restore the rest, c = cancel: ");
  while (true) {
    const key = await session.keys.next();
    if (key === null || (key.type === "key" && key.name !== "enter")) break;
    const c = key.type === "text" ? key.text[0].toLowerCase() : "";
    if (c === "o" || c === "k" || c === "c") {
      session.out.write(`${c}\n`);
      return c === "o" ? "overwrite" : c === "k" ? "keep" : "cancel";
    }
  }
  session.out.write("\n");
  return "cancel";
}
