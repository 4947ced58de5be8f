/**
 * Extra directories the operator grants besides the workspace (`--add-dir PATH[:ro]`, config
 * `addDirs`): parsed, then validated like the workspace before every spawn (design §2, §4).
 *
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { validateWorkspace } from "./validate_workspace.ts";

/**
 * One granted directory.
 *
 * @example A directory granted read-only
 * ```ts
 * import type { AddDir } from "./add_dirs.ts";
 * const docs: AddDir = { path: "/srv/docs", readOnly: true };
 * if (!docs.readOnly) throw new Error("read-only");
 * ```
 */
export interface AddDir {
  /** Absolute path: as written (after {@linkcode parseAddDir}) or real (after validation). */
  path: string;
  /** `PATH:ro`: readable but never writable through the workspace's scope. */
  readOnly: boolean;
}

/**
 * Parse `PATH` or `PATH:ro`. A relative path resolves against `baseDir`; with no `baseDir` it is
 * refused (config file entries must be absolute).
 *
 * @param spec the flag value or config entry
 * @param baseDir the directory relative paths resolve against (the caller's directory), or
 *   `undefined` when the entry came from the config file
 * @returns the directory as written (absolute, normalised) and whether it is read-only
 * @throws {OdekError} `USAGE` for an empty or relative-without-base path
 *
 * @example Read-only suffix
 * ```ts
 * import { parseAddDir } from "./add_dirs.ts";
 * const dir = parseAddDir("../cache:ro", "/srv/ws");
 * if (dir.path !== "/srv/cache" || !dir.readOnly) throw new Error(JSON.stringify(dir));
 * ```
 */
export function parseAddDir(spec: string, baseDir: string | undefined): AddDir {
  const readOnly = spec.endsWith(":ro");
  const raw = readOnly ? spec.slice(0, -3) : spec.endsWith(":rw") ? spec.slice(0, -3) : spec;
  if (raw === "") {
    throw new OdekError(
      "USAGE",
      `--add-dir needs a directory, got ${JSON.stringify(spec)}: --add-dir <dir>[:ro].`,
    );
  }
  if (!isAbsolute(raw) && baseDir === undefined) {
    throw new OdekError(
      "CONFIG_INVALID",
      `Invalid configuration at "addDirs": ${
        JSON.stringify(spec)
      } is relative; config entries must be absolute paths, e.g. "/srv/cache:ro".`,
    );
  }
  return { path: resolve(baseDir ?? "/", raw), readOnly };
}

/**
 * Validate every granted directory as {@linkcode validateWorkspace} validates a workspace: it
 * exists, the path as written is not a symlink, it is a directory, and it does not overlap a
 * protected root in either direction, as written and resolved. Run it before every spawn.
 *
 * @param dirs the directories as parsed
 * @param protectedRoots ODEK_HOME and the install directory (always both: an added directory
 *   never reopens odek's own code)
 * @returns the directories with their real paths, sorted, duplicates merged (writable wins)
 * @throws {OdekError} `WORKSPACE_INVALID` naming the directory, the reason and the fix; also for
 *   a real path holding a comma or control character (the sandbox cannot mount it)
 *
 * @example Validate a temp directory
 * ```ts
 * import { validateAddDirs } from "./add_dirs.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const [granted] = await validateAddDirs([{ path: dir, readOnly: true }], ["/nonexistent/odek"]);
 *   if (granted.path !== await Deno.realPath(dir) || !granted.readOnly) throw new Error("unexpected");
 * } finally {
 *   await Deno.remove(dir);
 * }
 * ```
 */
export async function validateAddDirs(
  dirs: readonly AddDir[],
  protectedRoots: string[],
): Promise<AddDir[]> {
  const merged = new Map<string, boolean>();
  for (const dir of dirs) {
    const real = await validateWorkspace(dir.path, {
      protectedRoots,
      role: { name: "added directory", flag: "--add-dir <dir>" },
    });
    // deno-lint-ignore no-control-regex
    if (/[,\u0000-\u001f]/.test(real)) {
      throw new OdekError(
        "WORKSPACE_INVALID",
        `Cannot use added directory ${
          JSON.stringify(real)
        }: its path holds a comma or a control character, which the sandbox cannot mount. Rename it.`,
      );
    }
    merged.set(real, (merged.get(real) ?? true) && dir.readOnly);
  }
  return [...merged].sort(([a], [b]) => a.localeCompare(b)).map(([path, readOnly]) => ({
    path,
    readOnly,
  }));
}
