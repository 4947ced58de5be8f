/**
 * The dedicated workspace: a private directory beside `ODEK_HOME` for `odek run
 * --dedicated-workspace` and daemons (`serve`), provisioned by odek itself (design §4).
 *
 * @module
 */
import { resolve } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { findOverlap, realPathOfPossiblyMissing } from "./find_overlap.ts";
import { validateWorkspace } from "./validate_workspace.ts";

/** The suffix appended to `ODEK_HOME`'s path: `~/.odek` → `~/.odek-workspace`. */
export const DEDICATED_WORKSPACE_SUFFIX = "-workspace";

/**
 * The dedicated workspace's path: `ODEK_HOME`'s path as written with `-workspace` appended, a
 * sibling of `ODEK_HOME` and never inside it.
 *
 * @param odekHome `ODEK_HOME` (absolute)
 * @returns the path (absolute, normalised)
 *
 * @example
 * ```ts
 * import { dedicatedWorkspacePath } from "./dedicated_workspace.ts";
 * if (dedicatedWorkspacePath("/home/ada/.odek/") !== "/home/ada/.odek-workspace") throw new Error();
 * ```
 */
export function dedicatedWorkspacePath(odekHome: string): string {
  return `${resolve(odekHome)}${DEDICATED_WORKSPACE_SUFFIX}`;
}

/** Options for {@linkcode provisionDedicatedWorkspace}. */
export interface ProvisionDedicatedWorkspaceOptions {
  /** ODEK_HOME, the install directory, and any other root the workspace must not overlap. */
  protectedRoots: string[];
  /** Create the directory (mode 0700) when it is missing. @default true */
  create?: boolean;
}

/**
 * Make sure the dedicated workspace exists and is usable, and return its real path. The one
 * routine every caller uses (`odek run --dedicated-workspace`, `odek doctor`, later `serve`), so
 * all of them judge the same path by the same rules:
 *
 * 1. the path-only rules first — absolute, not `/`, no overlap with a protected root in either
 *    direction, as written and resolved (a missing path through its nearest existing ancestor);
 * 2. only then, when it is missing, `mkdir` with mode 0700 (not recursive: its parent is
 *    `ODEK_HOME`'s parent, which exists) — so a refused path never leaves a directory behind
 *    inside a protected root;
 * 3. then the full check of {@linkcode validateWorkspace} with `requirePrivate`: not a symlink, a
 *    directory, owned by this user, mode exactly 0700, no overlap.
 *
 * Run step 3 ({@linkcode validateWorkspace} with `requirePrivate: true`) again before every
 * spawn: ownership, mode and type are file-system state that can change after startup.
 *
 * @param path the dedicated workspace (usually {@linkcode dedicatedWorkspacePath})
 * @param options the protected roots; whether to create it
 * @returns its real path
 * @throws {OdekError} `WORKSPACE_INVALID` naming the path, the reason and the exact command that
 *   fixes it (`mkdir -m 700 …`, `chmod 700 …`, `chown …`, or another `ODEK_HOME`)
 *
 * @example Provision beside a temporary ODEK_HOME
 * ```ts
 * import { dedicatedWorkspacePath, provisionDedicatedWorkspace } from "./dedicated_workspace.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const home = `${dir}/.odek`;
 *   const real = await provisionDedicatedWorkspace(dedicatedWorkspacePath(home), { protectedRoots: [home] });
 *   if (((await Deno.stat(real)).mode! & 0o777) !== 0o700) throw new Error("not private");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function provisionDedicatedWorkspace(
  path: string,
  options: ProvisionDedicatedWorkspaceOptions,
): Promise<string> {
  const written = resolve(path);
  const fail = (why: string, fix: string): never => {
    throw new OdekError(
      "WORKSPACE_INVALID",
      `Cannot use the dedicated workspace "${written}": ${why}. ${fix}`,
    );
  };
  if (written === "/") fail("it is the root directory", "Set ODEK_HOME to another directory.");
  const resolved = await realPathOfPossiblyMissing(written);
  const overlap = await findOverlap([written, resolved], options.protectedRoots);
  if (overlap !== null) {
    fail(
      `it ${overlap.how === "inside" ? "is inside" : "contains"} odek's protected directory ${
        overlap.root === overlap.compared
          ? overlap.root
          : `${overlap.root} (resolved: ${overlap.compared})`
      }${resolved === written ? "" : ` (the path resolves to ${resolved})`}`,
      "Nothing was created. Set ODEK_HOME so that its sibling <ODEK_HOME>-workspace lies outside every protected directory, or pass --workspace <dir>.",
    );
  }
  let info: Deno.FileInfo | null = null;
  try {
    info = await Deno.lstat(written);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (info === null && options.create !== false) {
    try {
      await Deno.mkdir(written, { mode: 0o700 });
      await Deno.chmod(written, 0o700); // the umask may have narrowed it; never widened
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) {
        fail(
          `it does not exist and odek cannot create it (${(error as Error).message})`,
          `Create it with: mkdir -p -m 700 ${written}`,
        );
      }
    }
  } else if (info === null) {
    fail("it does not exist", `Create it with: mkdir -p -m 700 ${written}`);
  } else if (info.isSymlink) {
    const target = await Deno.realPath(written).catch(() => "a missing target");
    fail(
      `it is a symlink (to ${target}); it must be a real directory`,
      `Replace the link with a private directory: rm ${written} && mkdir -m 700 ${written}`,
    );
  }
  return await validateWorkspace(written, {
    protectedRoots: options.protectedRoots,
    requirePrivate: true,
    role: { name: "the dedicated workspace", flag: `--workspace <dir>` },
  });
}
