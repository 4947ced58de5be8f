/**
 * The line `odek --version` prints, shared by the checkout's entry (`src/cli/odek_entry.ts`) and
 * the installed command's bundle entry (`src/bundle_main.ts`, which answers it without loading
 * anything else).
 *
 * @module
 */
import { childDenoPath, PINNED_DENO_VERSION } from "../runtime/child_deno_path.ts";
import { ODEK_VERSION } from "./version.ts";

/**
 * The version line: odek's version, the running deno's, the pinned one, and the deno the tool
 * children would run with (or why none was found).
 *
 * @param env the environment the children's deno is looked up in (`ODEK_DENO`, `PATH`)
 * @param execPath the running executable (`Deno.execPath()`)
 * @returns one line, without a newline
 *
 * @example
 * ```ts
 * import { versionLine } from "./version_line.ts";
 * const line = versionLine({}, "/opt/deno/deno");
 * if (!line.startsWith("odek ") || !line.endsWith("run with /opt/deno/deno (self))")) throw new Error(line);
 * ```
 */
export function versionLine(env: Record<string, string | undefined>, execPath: string): string {
  const deno = childDenoPath(env, execPath);
  const children = deno.path === null
    ? `none found: install deno ${PINNED_DENO_VERSION} or set ODEK_DENO`
    : `${deno.path} (${deno.source})`;
  return `odek ${ODEK_VERSION} (deno ${Deno.version.deno}, pinned ${PINNED_DENO_VERSION}; tool children run with ${children})`;
}
