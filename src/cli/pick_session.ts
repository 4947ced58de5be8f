/**
 * Which session a command without a session id means: the newest one of the current workspace,
 * never another workspace's. And the line that says so when a session works elsewhere.
 *
 * @module
 */
import { resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionSummary } from "../session/session_store.ts";
import { terminalSafe } from "./terminal_safe.ts";

/**
 * The newest session of `workspace` (the caller's directory, or `--workspace`).
 *
 * @param runtime the CLI's runtime
 * @param workspace the workspace, absolute or relative to the runtime's directory
 * @param verb what the caller does with it, for the message (`continue`, `undo`, `rewind`)
 * @returns its id
 * @throws {OdekError} `SESSION_NOT_FOUND` naming the workspace and the newest sessions elsewhere
 */
export async function newestSessionHere(
  runtime: Runtime,
  workspace: string,
  verb: string,
): Promise<string> {
  const { here, elsewhere, workspace: real } = await runtime.sessionsOf(
    resolve(runtime.cwd ?? "/", workspace),
  );
  if (here[0]) return here[0].id;
  const others = elsewhere.slice(0, 3).map(describe);
  throw new OdekError(
    "SESSION_NOT_FOUND",
    `No session works in ${real}: start one with odek run "<task>".${
      others.length > 0
        ? ` The newest elsewhere: ${
          others.join("; ")
        }. To ${verb} one of them, name it: odek ${verb} <session>.`
        : ""
    }`,
  );
}

/**
 * `odek: session X works in /b, not in the current directory /a` when a session's workspace is
 * not the caller's directory; `undefined` when it is.
 */
export async function elsewhereNote(
  sessionWorkspace: string,
  callerDir: string,
  id: string,
): Promise<string | undefined> {
  const here = await Deno.realPath(callerDir).catch(() => callerDir);
  if (sessionWorkspace === here) return undefined;
  return terminalSafe(
    `odek: session ${id} works in ${sessionWorkspace}, not in the current directory ${here}`,
    true,
  );
}

function describe(s: SessionSummary): string {
  return `${s.id} in ${s.workspace} ("${s.title}")`;
}
