/**
 * Locate bubblewrap, the mount-namespace layer of every sandbox (design §2).
 *
 * @module
 */
import { delimiter, join } from "node:path";

/** The command an operator runs (as root) to install bubblewrap on Debian and Ubuntu. */
export const BWRAP_INSTALL_COMMAND = "apt-get install bubblewrap";

/** Options for {@linkcode findBwrap}. */
export interface FindBwrapOptions {
  /** Directories to search, `:`-separated. @default the `PATH` of this process (or `/usr/bin:/bin`) */
  path?: string;
}

/**
 * Find a working `bwrap` on `PATH`: the first executable named `bwrap` whose `--version` exits 0.
 *
 * Needs `--allow-env=PATH`, `--allow-read` of the searched directories and `--allow-run` of
 * the candidate. Never throws: any failure (not found, not executable, no permission to look)
 * counts as missing.
 *
 * @param options where to search
 * @returns the absolute path of bwrap, or `null` when none works
 *
 * @example Look for bwrap in a directory that has none
 * ```ts
 * import { findBwrap } from "./find_bwrap.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   if (await findBwrap({ path: dir }) !== null) throw new Error("found a bwrap that is not there");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function findBwrap(options: FindBwrapOptions = {}): Promise<string | null> {
  let searchPath = options.path;
  if (searchPath === undefined) {
    try {
      searchPath = Deno.env.get("PATH") ?? "/usr/bin:/bin";
    } catch {
      searchPath = "/usr/bin:/bin";
    }
  }
  for (const dir of searchPath.split(delimiter)) {
    if (!dir.startsWith("/")) continue;
    const candidate = join(dir, "bwrap");
    try {
      const info = await Deno.stat(candidate);
      if (!info.isFile || ((info.mode ?? 0) & 0o111) === 0) continue;
      const { success } = await new Deno.Command(candidate, {
        args: ["--version"],
        clearEnv: true,
        stdin: "null",
        stdout: "null",
        stderr: "null",
      }).output();
      if (success) return candidate;
    } catch {
      // Not there, not readable or not runnable: try the next directory.
    }
  }
  return null;
}
