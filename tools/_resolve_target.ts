/**
 * Realpath containment for file tools: Deno's path permissions are string checks, so a symlink
 * inside the workspace would reach outside it (design §2). Every target is realpathed and must
 * land inside the realpathed workspace; a write target's parent too, with missing parents created
 * only after the check (odek-go §4.1 confines `write_file` the same way).
 *
 * @module
 */
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "./_posix_path.ts";
import { protectedReason } from "./_catalogue/protected_paths.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/** What a write may reach besides the workspace and the added directories. */
export interface WriteGrants {
  /**
   * Single files the call's approval granted (absolute): outside the workspace, or protected
   * files inside it. @default []
   */
  grants?: readonly string[];
  /** Protected places besides the fixed names, relative to the workspace. @default [] */
  protect?: readonly string[];
}

/**
 * The granted single file `path` names, when the call's approval granted exactly it: it must be
 * a regular file (odek created an empty one when it was missing) at its own real path.
 *
 * @param workspace the workspace (relative paths resolve against it)
 * @param path the path the model wrote
 * @param grants the granted files
 * @returns the absolute path to write in place, or `null` when `path` is not granted
 * @throws {ToolFailure} `denied` when the granted path is now a link or not a regular file
 *
 * @example
 * ```ts
 * import { resolveGrantedTarget } from "./_resolve_target.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.writeTextFile(`${dir}/notes.txt`, "");
 * if (await resolveGrantedTarget("/nonexistent", `${dir}/notes.txt`, [`${dir}/notes.txt`]) === null) throw new Error();
 * if (await resolveGrantedTarget("/nonexistent", `${dir}/other.txt`, [`${dir}/notes.txt`]) !== null) throw new Error();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function resolveGrantedTarget(
  workspace: string,
  path: string,
  grants: readonly string[],
): Promise<string | null> {
  const abs = resolve(workspace, path);
  if (!grants.includes(abs)) return null;
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(abs);
  } catch {
    throw new ToolFailure("denied", `${path} was granted but is no longer there`);
  }
  if (!info.isFile || (await Deno.realPath(abs)) !== abs) {
    throw new ToolFailure(
      "denied",
      `${path} was granted as a single file, but it is ${
        info.isSymlink ? "a symlink" : "not a regular file"
      } now: nothing was written`,
    );
  }
  return abs;
}

/**
 * The real path of an existing file or directory the model named, checked to be inside the
 * workspace.
 *
 * @param workspace the workspace (absolute)
 * @param path the path the model wrote, relative to the workspace or absolute inside it (or
 *   inside one of `extraRoots`)
 * @param extraRoots directories the operator granted besides the workspace (`--add-dir`), each
 *   realpathed; an absolute path inside one is contained by it instead of the workspace
 * @returns the real path
 * @throws {ToolFailure} `denied` when the path, or a symlink on its way, leads outside the
 *   workspace; `failed` when it does not exist
 *
 * @example Resolve a file
 * ```ts
 * import { resolveReadTarget } from "./_resolve_target.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "hi");
 *   if (await resolveReadTarget(ws, "a.txt") !== `${ws}/a.txt`) throw new Error("wrong path");
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function resolveReadTarget(
  workspace: string,
  path: string,
  extraRoots: readonly string[] = [],
): Promise<string> {
  const { root, abs } = await containing(workspace, path, extraRoots);
  return await realInside(root, abs, path);
}

/**
 * The real path a write to `path` must replace or create, checked to be inside the workspace.
 * Missing parent directories are created after the check (and checked again).
 *
 * @param workspace the workspace (absolute)
 * @param path the path the model wrote
 * @param extraRoots granted directories besides the workspace (see {@linkcode resolveReadTarget})
 * @returns the real path of the file to write (its parent exists)
 * @throws {ToolFailure} `denied` when it leads outside the workspace; `failed` when it is a
 *   directory or a parent is not a directory
 *
 * @example Resolve a new file in a new directory
 * ```ts
 * import { resolveWriteTarget } from "./_resolve_target.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   if (await resolveWriteTarget(ws, "new/dir/a.txt") !== `${ws}/new/dir/a.txt`) throw new Error("wrong");
 *   if (!(await Deno.stat(`${ws}/new/dir`)).isDirectory) throw new Error("parent not created");
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function resolveWriteTarget(
  workspace: string,
  path: string,
  extraRoots: readonly string[] = [],
  options: WriteGrants = {},
): Promise<string> {
  const root = await Deno.realPath(workspace);
  // As written first (before any missing directory is created for it), then as resolved.
  refuseProtected(root, resolve(root, path), path, options);
  const real = await resolveWriteTargetIn(workspace, path, extraRoots);
  refuseProtected(root, real, path, options);
  return real;
}

/**
 * Refuse a write to a file the host runs later (hooks, `.git/config`, `.envrc`, editor
 * settings, odek's project configuration) unless the call's approval granted it.
 *
 * @param workspace the realpathed workspace
 * @param target the real path to be written
 * @param shown the path as the model wrote it
 * @param options the grants and the extra protected places
 * @throws {ToolFailure} `denied`, saying what the file is and how such a write is made
 */
export function refuseProtected(
  workspace: string,
  target: string,
  shown: string,
  options: WriteGrants = {},
): void {
  if (!isWithin(workspace, target) || (options.grants ?? []).includes(target)) return;
  const reason = protectedReason(relative(workspace, target).split(sep).join("/"), options.protect);
  if (reason === undefined) return;
  throw new ToolFailure(
    "denied",
    `${shown} is a file the host runs later (${reason}): file tools do not change it unless the operator approves that write, and this call's approval did not name it`,
  );
}

async function resolveWriteTargetIn(
  workspace: string,
  path: string,
  extraRoots: readonly string[],
): Promise<string> {
  const { root, abs } = await containing(workspace, path, extraRoots);
  if (abs === root) {
    throw new ToolFailure(
      "failed",
      `${path} is the workspace directory itself`,
    );
  }
  if (await lexists(abs)) {
    const real = await realInside(root, abs, path);
    if ((await Deno.stat(real)).isDirectory) {
      throw new ToolFailure(
        "failed",
        `${path} is a directory: name a file inside it`,
      );
    }
    return real;
  }
  const missing = [basename(abs)];
  let ancestor = dirname(abs);
  while (!(await lexists(ancestor))) {
    missing.unshift(basename(ancestor));
    ancestor = dirname(ancestor);
  }
  const realAncestor = await realInside(root, ancestor, path);
  if (!(await Deno.stat(realAncestor)).isDirectory) {
    throw new ToolFailure(
      "failed",
      `Cannot write ${path}: ${ancestor} is not a directory`,
    );
  }
  const parent = join(realAncestor, ...missing.slice(0, -1));
  if (missing.length > 1) await Deno.mkdir(parent, { recursive: true });
  return join(
    await realInside(root, parent, path),
    missing[missing.length - 1],
  );
}

/**
 * The path of an existing entry the model named, its parent realpathed and checked to be inside
 * the workspace, its last component left as it is (a symlink is not followed: `file_info`
 * describes the link itself, like odek-go's Lstat).
 *
 * @param workspace the workspace (absolute)
 * @param path the path the model wrote
 * @returns the real parent joined with the last component (the workspace's realpath for `.`)
 * @throws {ToolFailure} `denied` when the path or a symlink on the way to its parent leads
 *   outside the workspace; `failed` when it does not exist
 *
 * @example A symlink is not followed
 * ```ts
 * import { resolveEntryTarget } from "./_resolve_target.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.symlink("/etc/hostname", `${ws}/link`);
 *   if (await resolveEntryTarget(ws, "link") !== `${ws}/link`) throw new Error("followed");
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function resolveEntryTarget(
  workspace: string,
  path: string,
  extraRoots: readonly string[] = [],
): Promise<string> {
  const { root, abs } = await containing(workspace, path, extraRoots);
  if (abs === root) return root;
  const entry = join(await realInside(root, dirname(abs), path), basename(abs));
  if (!(await lexists(entry))) {
    throw new ToolFailure(
      "failed",
      `${path} does not exist in the workspace ${root}`,
    );
  }
  return entry;
}

/**
 * True when `child` is `parent` or lies inside it (lexically).
 *
 * @param parent an absolute path
 * @param child an absolute path
 * @returns whether `child` is within `parent`
 *
 * @example
 * ```ts
 * import { isWithin } from "./_resolve_target.ts";
 * if (!isWithin("/a", "/a/b") || isWithin("/a", "/ab")) throw new Error("wrong");
 * ```
 */
export function isWithin(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" ||
    (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** The root (the workspace, else the granted directory) `path` lies in lexically, and the path. */
async function containing(
  workspace: string,
  path: string,
  extraRoots: readonly string[],
): Promise<{ root: string; abs: string }> {
  const root = await Deno.realPath(workspace);
  const abs = resolve(root, path);
  if (!isWithin(root, abs)) {
    for (const extra of extraRoots) {
      if (isAbsolute(extra) && isWithin(extra, abs)) {
        return { root: extra, abs };
      }
    }
  }
  return { root, abs: lexicallyInside(root, path) };
}

function lexicallyInside(root: string, path: string): string {
  const abs = resolve(root, path);
  if (!isWithin(root, abs)) {
    throw new ToolFailure(
      "denied",
      `${path} is outside the workspace ${root}: file tools only reach paths inside it (and the directories the operator adds with --add-dir DIR), or a file outside whose write the operator approved`,
    );
  }
  return abs;
}

async function realInside(
  root: string,
  abs: string,
  shown: string,
): Promise<string> {
  let real: string | undefined;
  try {
    real = await Deno.realPath(abs);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (real !== undefined && isWithin(root, real)) return real;
  const link = await escapingLink(root, abs);
  if (link === undefined && real === undefined) {
    throw new ToolFailure(
      "failed",
      `${shown} does not exist in the workspace ${root}`,
    );
  }
  const how = link === undefined
    ? `resolves to ${real}`
    : `${
      link.path === resolve(root, shown) ? "is a symlink" : `goes through the symlink ${link.path}`
    } pointing to ${link.target}`;
  throw new ToolFailure(
    "denied",
    `${shown} ${how}, outside the workspace ${root}: symlinks may not lead out of the workspace (the operator can add the directory it points to with --add-dir DIR)`,
  );
}

/** The first symlink on the way from `root` to `abs` whose target lies outside `root`. */
async function escapingLink(root: string, abs: string) {
  let current = root;
  for (const part of relative(root, abs).split(sep).filter(Boolean)) {
    current = join(current, part);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(current);
    } catch {
      return undefined;
    }
    if (!info.isSymlink) continue;
    const target = resolve(dirname(current), await Deno.readLink(current));
    if (!isWithin(root, target)) return { path: current, target };
    current = target;
  }
  return undefined;
}

async function lexists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
