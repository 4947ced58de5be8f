/**
 * Writing a checkpoint's files back into the workspace, from the core, without ever writing
 * through a symlink: every folder on a path's way is `lstat`ed from the workspace down (a symlink
 * or a file in the way stops that path), a file is written to a fresh temporary name in its
 * folder (`createNew`) and renamed over the old one (a rename replaces a symlink, never follows
 * it), and the folders are checked again afterwards. Protected in-workspace files are never
 * written; paths that exist but were not recorded now (ignored, unreadable) are left alone.
 *
 * @module
 */
import { join } from "node:path";
import type { RestoreResult } from "./checkpoint_store.ts";
import type { SnapshotFile } from "./_snapshot_workspace.ts";
import { isProtectedWorkspacePath } from "./protected_workspace_paths.ts";

/** The changes a restore makes, before it makes them. */
export interface RestorePlan {
  write: string[];
  delete: string[];
  protected: string[];
}

/** Which paths differ between the workspace now (`current`) and the checkpoint (`target`). */
export function planRestore(
  target: ReadonlyMap<string, SnapshotFile>,
  current: ReadonlyMap<string, SnapshotFile>,
  paths?: readonly string[],
  keep: readonly string[] = [],
  extra: readonly string[] = [],
): RestorePlan {
  const kept = new Set(keep);
  const prefixes = paths?.map((p) => p.replace(/^(\.\/)+/, "").replace(/\/+$/, ""));
  const selected = (path: string) =>
    !kept.has(path) &&
    (!prefixes ||
      prefixes.some((p) => p === "" || p === "." || path === p || path.startsWith(`${p}/`)));
  const plan: RestorePlan = { write: [], delete: [], protected: [] };
  for (const [path, file] of target) {
    if (!selected(path)) continue;
    const now = current.get(path);
    if (now && now.oid === file.oid && now.mode === file.mode && now.perm === file.perm) continue;
    (isProtectedWorkspacePath(path, extra) ? plan.protected : plan.write).push(path);
  }
  for (const path of current.keys()) {
    if (!selected(path) || target.has(path)) continue;
    (isProtectedWorkspacePath(path, extra) ? plan.protected : plan.delete).push(path);
  }
  plan.write.sort();
  plan.delete.sort().reverse();
  plan.protected.sort();
  return plan;
}

/**
 * Carry out a plan.
 *
 * @returns what was written, deleted, left as protected, and skipped with the reason
 */
export function applyRestore(
  workspace: string,
  plan: RestorePlan,
  target: ReadonlyMap<string, SnapshotFile>,
  current: ReadonlyMap<string, SnapshotFile>,
  read: (oid: string) => Uint8Array,
): Omit<RestoreResult, "checkpoint" | "notRestorable"> {
  const result: Omit<RestoreResult, "checkpoint" | "notRestorable"> = {
    written: [],
    deleted: [],
    protected: plan.protected,
    skipped: [],
  };
  const emptied = new Set<string>();
  for (const path of plan.delete) {
    const way = checkWay(workspace, path, false);
    if (typeof way === "string") {
      result.skipped.push({ path, reason: way });
      continue;
    }
    try {
      Deno.removeSync(join(workspace, path)); // a file or a symlink: never a folder's contents
      result.deleted.push(path);
      for (let dir = parentOf(path); dir !== ""; dir = parentOf(dir)) emptied.add(dir);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        result.skipped.push({ path, reason: `could not delete it: ${(error as Error).message}` });
      }
    }
  }
  const wanted = new Set([...target.keys()].flatMap((p) => ancestorsOf(p)));
  for (const dir of [...emptied].sort().reverse()) {
    if (wanted.has(dir)) continue;
    try {
      const info = Deno.lstatSync(join(workspace, dir));
      if (info.isDirectory && isEmpty(join(workspace, dir))) Deno.removeSync(join(workspace, dir));
    } catch {
      // gone or not empty: left as it is
    }
  }
  for (const path of plan.write) {
    const reason = writeOne(workspace, path, target.get(path)!, current.has(path), read);
    if (reason === undefined) result.written.push(path);
    else result.skipped.push({ path, reason });
  }
  return result;
}

/** Write one path; returns why it was not written, or `undefined`. */
function writeOne(
  workspace: string,
  path: string,
  file: SnapshotFile,
  recordedNow: boolean,
  read: (oid: string) => Uint8Array,
): string | undefined {
  const way = checkWay(workspace, path, true);
  if (typeof way === "string") return way;
  const full = join(workspace, path);
  const existing = lstatOrNull(full);
  if (existing && !recordedNow) {
    return existing.isDirectory
      ? "a folder is in its place (it holds files the checkpoint does not have): left alone"
      : "it exists but is not recorded now (ignored or unreadable): left alone";
  }
  if (existing?.isDirectory) return "a folder is in its place: left alone";
  const temp = join(workspace, parentOf(path), `.odek-restore-${crypto.randomUUID()}`);
  try {
    const bytes = read(file.oid);
    if (file.mode === "120000") {
      Deno.symlinkSync(new TextDecoder().decode(bytes), temp);
    } else {
      Deno.writeFileSync(temp, bytes, { createNew: true, mode: 0o600 });
      Deno.chmodSync(temp, file.perm);
    }
    Deno.renameSync(temp, full);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch {
      // never created
    }
    return `could not write it: ${(error as Error).message}`;
  }
  const again = checkWay(workspace, path, false);
  if (typeof again === "string" || again.join() !== way.join()) {
    return "a folder on its way changed while it was written: check it";
  }
  return undefined;
}

/**
 * Check (and with `create`, make) every folder from the workspace down to `path`'s parent: each
 * must be a real folder. Returns the folders' identities, or why the path cannot be reached.
 */
function checkWay(workspace: string, path: string, create: boolean): string[] | string {
  const ids: string[] = [];
  let dir = "";
  for (const part of ancestorsOf(path).reverse()) {
    dir = part;
    const full = join(workspace, dir);
    let info = lstatOrNull(full);
    if (!info && create) {
      try {
        Deno.mkdirSync(full, { mode: 0o755 });
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) {
          return `could not create ${dir}/: ${(error as Error).message}`;
        }
      }
      info = lstatOrNull(full);
    }
    if (!info) return `${dir}/ is missing`;
    if (info.isSymlink) return `${dir} is a symlink now: not followed, left alone`;
    if (!info.isDirectory) return `${dir} is a file now (not recorded): left alone`;
    ids.push(`${info.dev}:${info.ino}`);
  }
  return ids;
}

/** `a/b/c` → `["a/b", "a"]`. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let dir = parentOf(path); dir !== ""; dir = parentOf(dir)) out.push(dir);
  return out;
}

function parentOf(path: string): string {
  const at = path.lastIndexOf("/");
  return at === -1 ? "" : path.slice(0, at);
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

function isEmpty(dir: string): boolean {
  for (const _ of Deno.readDirSync(dir)) return false;
  return true;
}
