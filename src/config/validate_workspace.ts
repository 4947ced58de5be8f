/**
 * Workspace validation, run before every spawn (design §4; the rules come from odek-go §5.11).
 *
 * @module
 */
import { relative, resolve, sep } from "node:path";
import { findOverlap } from "./find_overlap.ts";
import { trustedRealPath } from "./trusted_real_path.ts";
import { currentUser } from "../_util/current_user.ts";
import { OdekError } from "../_util/odek_error.ts";

/** Options for {@linkcode validateWorkspace}. */
export interface ValidateWorkspaceOptions {
  /**
   * Directories the workspace must not overlap in either direction: `ODEK_HOME`, the install
   * directory, the sessions and logs directories. A root that does not exist yet is still
   * protected. Leave the install directory out when the operator named the workspace explicitly
   * (working on odek itself stays possible).
   */
  protectedRoots: string[];
  /**
   * Also require the directory to be private: owned by the current user with mode exactly 0700
   * (for the dedicated workspace of `serve` and daemons). @default false
   */
  requirePrivate?: boolean;
  /**
   * What the directory is, for the messages: its name and the flag that chooses another.
   * @default { name: "workspace", flag: "--workspace <dir>" }
   */
  role?: { name: string; flag: string };
  /** The user's home: links directly in it are followed. @default `HOME` */
  home?: string;
}

/**
 * Check that `path` is a usable workspace and return its real path. The checks, a few syscalls in
 * all: it exists; the path as written is not a symlink (`lstat`); it is a directory; a symlink
 * earlier on its way is followed only in a directory that contains a protected root or is the
 * home (anywhere else a sandboxed program may have swapped it in; see `trustedRealPath`); its real path
 * leads to that same directory (device and inode, so a rename racing the check is refused); it
 * does not overlap a protected root in either direction (the workspace inside a root, or a root inside the
 * workspace), comparing the paths as written (made absolute and normalised) and after resolving
 * links. A protected root that does not exist yet is resolved through its nearest existing
 * ancestor. Nothing is created or changed.
 *
 * @param path the workspace, absolute or relative to the current directory
 * @param options the protected roots; see {@linkcode ValidateWorkspaceOptions}
 * @returns the workspace's real path (all links resolved)
 * @throws {OdekError} `WORKSPACE_INVALID` naming the path, the reason and the fix.
 *
 * @example Accept a plain directory, refuse ODEK_HOME's inside
 * ```ts
 * import { isInside, validateWorkspace, type ValidateWorkspaceOptions } from "./validate_workspace.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   const options: ValidateWorkspaceOptions = { protectedRoots: [`${dir}-odek-home`] };
 *   const real = await validateWorkspace(dir, options);
 *   if (!isInside(real, await Deno.realPath(dir))) throw new Error(real);
 *   if (real !== await Deno.realPath(dir)) throw new Error(real);
 *   await Deno.mkdir(`${dir}/.odek`);
 *   const refused = await validateWorkspace(`${dir}/.odek`, { protectedRoots: [`${dir}/.odek`] })
 *     .then(() => false, (error) => error.code === "WORKSPACE_INVALID");
 *   if (!refused) throw new Error("ODEK_HOME accepted as a workspace");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function validateWorkspace(
  path: string,
  options: ValidateWorkspaceOptions,
): Promise<string> {
  const written = resolve(path);
  const { name, flag } = options.role ?? { name: "workspace", flag: "--workspace <dir>" };
  const fail = (why: string, fix: string): never => {
    throw new OdekError("WORKSPACE_INVALID", `Cannot use ${name} "${written}": ${why}. ${fix}`);
  };
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(written);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    return fail(
      "it does not exist",
      `Create it with: mkdir -p ${written} (or pass ${flag}).`,
    );
  }
  if (info.isSymlink) {
    const target = await Deno.realPath(written).catch(() => undefined);
    fail(
      `it is a symlink (to ${target ?? "a missing target"})`,
      target
        ? `Pass the real directory instead: ${flag.replace("<dir>", target)}.`
        : "Pass a real directory.",
    );
  }
  if (!info.isDirectory) {
    fail("it is not a directory", `Pass a directory with ${flag}.`);
  }
  // Links on the way are followed only where no sandbox can have planted or swapped them.
  const walked = await trustedRealPath(written, {
    protectedRoots: options.protectedRoots,
    home: options.home ?? homeOrUndefined(),
  });
  if (walked.type === "untrusted_link") {
    fail(
      `its path goes through the symlink ${walked.link} (to ${walked.target}), in a directory a sandboxed program may be able to write`,
      `Pass the real directory instead: ${flag.replace("<dir>", "<its real path>")}.`,
    );
  }
  // The real path is the walk's (never a second resolution that could take a link swapped in
  // meanwhile), and it must lead to the directory lstat saw.
  if (walked.type !== "real" || walked.missing !== "") {
    const why = walked.type === "unresolved" ? walked.reason : "it disappeared";
    return fail(`it changed while it was checked (${why})`, "Try again once it stays in place.");
  }
  const real = walked.path;
  const resolved = await Deno.lstat(real).catch(() => null);
  if (resolved?.dev !== info.dev || resolved?.ino !== info.ino || !resolved.isDirectory) {
    fail(
      `it changed while it was checked (it now resolves to ${real}, which is not the directory found at ${written})`,
      "Something renamed or replaced it meanwhile; try again once it stays in place.",
    );
  }
  const overlap = await findOverlap([written, real], options.protectedRoots);
  if (overlap?.how === "inside") {
    fail(
      `it is inside odek's protected directory ${describe(overlap.root, overlap.compared)}`,
      `Use a directory outside it: ${flag}.`,
    );
  }
  if (overlap?.how === "contains") {
    fail(
      `it contains odek's protected directory ${describe(overlap.root, overlap.compared)}`,
      `Use a directory that does not contain it: ${flag}.`,
    );
  }
  if (options.requirePrivate) checkPrivate(info, (await currentUser()).uid, fail, written);
  return real;
}

/**
 * Whether `child` is `parent` or lies below it, comparing whole path segments (so `/a/bc` is not
 * inside `/a/b`). Both paths are made absolute and normalised first; links are not resolved.
 *
 * @param child the path that may be inside
 * @param parent the directory it may be inside
 * @returns true when `child` equals `parent` or is a descendant of it
 *
 * @example Segment-aware containment
 * ```ts
 * import { isInside, validateWorkspace, type ValidateWorkspaceOptions } from "./validate_workspace.ts";
 * if (!isInside("/a/b/c", "/a/b") || !isInside("/a/b", "/a/b/")) throw new Error("inside");
 * if (isInside("/a/bc", "/a/b") || isInside("/a", "/a/b")) throw new Error("not inside");
 * // validateWorkspace() refuses any workspace isInside() relates to a protected root:
 * const options: ValidateWorkspaceOptions = { protectedRoots: ["/"] };
 * const refused = await validateWorkspace("/tmp", options).then(() => false, () => true);
 * if (!refused) throw new Error("accepted a workspace inside /");
 * ```
 */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}

/** "X" or "X (resolved: Y)". */
function describe(written: string, compared: string): string {
  return written === compared ? written : `${written} (resolved: ${compared})`;
}

/** Refuse a directory that other users can reach or that someone else owns. */
function checkPrivate(
  info: Deno.FileInfo,
  uid: number,
  fail: (why: string, fix: string) => never,
  path: string,
) {
  const mode = (info.mode ?? 0) & 0o777;
  if (info.uid !== uid) {
    fail(
      `it is owned by uid ${info.uid}, not by the current user (uid ${uid})`,
      `Run: chown ${uid} ${path}.`,
    );
  }
  if (mode !== 0o700) {
    fail(`its mode is ${mode.toString(8).padStart(4, "0")}, not 0700`, `Run: chmod 700 ${path}.`);
  }
}

function homeOrUndefined(): string | undefined {
  try {
    return Deno.env.get("HOME");
  } catch {
    return undefined; // no --allow-env: only links in directories holding a protected root
  }
}
