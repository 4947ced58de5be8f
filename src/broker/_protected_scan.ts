/**
 * Finding the protected files of a workspace (private to `broker/`; the names are in
 * `tools/_catalogue/protected_paths.ts`): a walk of the workspace that never follows a symlink
 * and skips `node_modules`, reusing a directory's listing while its inode, mtime and ctime are
 * unchanged (so a rescan costs one `lstat` per directory), and recording the state and content
 * of every protected file so a call's changes can be reverted.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import { readVerifiedFileSync } from "../_util/read_verified_file.ts";
import type { RepoProgram } from "../danger/repo_programs.ts";
import { GIT_DIR_PROTECTED, protectedReason } from "../../tools/_catalogue/protected_paths.ts";
import { readRepoConfig } from "./_repo_config.ts";

/** The state of one protected path. */
export interface ProtectedEntry {
  type: "file" | "dir" | "link" | "other";
  ino: number;
  size: number;
  mtimeMs: number | null;
  ctimeMs: number | null;
  mode: number;
  /** A file's bytes (up to {@linkcode MAX_KEPT_BYTES}), to restore it. */
  content?: Uint8Array;
  /** A link's target. */
  target?: string;
}

/** What one scan found. */
export interface ProtectedScan {
  /** Every protected path that exists (inside protected directories too), absolute. */
  entries: Map<string, ProtectedEntry>;
  /** The outermost protected paths that exist: bound read-only into writable sandboxes. */
  roots: string[];
  /** Protected places the repositories' configuration names, relative to the workspace. */
  extra: string[];
  /** Programs the workspace's repositories configure. */
  programs: RepoProgram[];
  /** Every `.git` entry (repositories, worktree and submodule links), absolute. */
  repositories: string[];
  /** Set when the walk stopped early: what it did not look at. */
  truncated?: string;
}

/** A directory's listing, reused while the directory is unchanged. */
interface Listing {
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  readAt: number;
  items: { name: string; dir: boolean }[];
}

/** Bytes of a protected file kept to restore it; a larger one is removed when changed. */
export const MAX_KEPT_BYTES = 1024 * 1024;
/** Directories visited at most per scan. */
export const MAX_SCAN_DIRS = 20_000;
/** Directories never walked into (dependencies: the user installs them knowingly). */
const SKIPPED = new Set(["node_modules"]);
/** A listing is reused only when the directory last changed this long before it was read. */
const SETTLE_MS = 20;

/** State kept between scans of one workspace: directory listings and file contents. */
export class ScanCache {
  readonly listings = new Map<string, Listing>();
  readonly contents = new Map<string, { key: string; content: Uint8Array }>();
}

/**
 * Scan `workspace` for protected paths.
 *
 * @param workspace the workspace (real path)
 * @param home the user's home (for `~/` in git configuration)
 * @param cache what earlier scans of this workspace learnt
 * @returns the scan
 */
export function scanProtected(workspace: string, home: string, cache: ScanCache): ProtectedScan {
  const scan: ProtectedScan = {
    entries: new Map(),
    roots: [],
    extra: [],
    programs: [],
    repositories: [],
  };
  // The workspace's own repository first: its configuration names more protected places.
  const own = join(workspace, ".git");
  if (lstat(own) !== null) repository(workspace, own, scan, home, cache, workspace);
  let dirs = 0;
  const walk = (dir: string) => {
    if (++dirs > MAX_SCAN_DIRS) {
      scan.truncated ??= `more than ${MAX_SCAN_DIRS} directories: ${dir} and what follows`;
      return;
    }
    for (const item of listing(dir, cache)) {
      const path = join(dir, item.name);
      const rel = relative(workspace, path);
      if (item.name === ".git") {
        if (path !== own) repository(dirname(path), path, scan, home, cache, workspace);
        continue;
      }
      if (protectedReason(rel, scan.extra) !== undefined) {
        capture(path, scan, cache, true);
        continue;
      }
      if (item.dir && !SKIPPED.has(item.name)) {
        // A directory git takes for a repository by itself (a bare one, `git init --bare`, or
        // files shaped like one): its configuration and hooks are the host's to run, like `.git`'s.
        if (looksLikeGitDir(path, cache)) {
          for (const name of GIT_DIR_PROTECTED) {
            const place = rel === "" ? name : `${rel}/${name}`;
            if (!scan.extra.includes(place)) scan.extra.push(place);
          }
        }
        walk(path);
      }
    }
  };
  walk(workspace);
  scan.roots.sort();
  return scan;
}

/**
 * Whether git would open `dir` as a repository of its own (its discovery rule: a `HEAD` file
 * next to `objects/` and `refs/`).
 */
function looksLikeGitDir(dir: string, cache: ScanCache): boolean {
  const names = new Map(listing(dir, cache).map((item) => [item.name, item.dir]));
  return names.get("HEAD") === false && names.get("objects") === true &&
    names.get("refs") === true;
}

/** A repository's `.git`: its protected entries, its configuration's programs and places. */
function repository(
  worktree: string,
  dotGit: string,
  scan: ProtectedScan,
  home: string,
  cache: ScanCache,
  workspace: string,
): void {
  scan.repositories.push(dotGit);
  const info = lstat(dotGit);
  if (info?.isDirectory) {
    gitDirEntries(dotGit, scan, cache);
  } else capture(dotGit, scan, cache, true); // a worktree's or submodule's `gitdir:` file
  const config = readRepoConfig(worktree, dotGit, home);
  if (config === null) return;
  scan.programs.push(...config.programs);
  const inside = (path: string) => {
    const rel = relative(workspace, path);
    return rel !== "" && !rel.startsWith("..") && !rel.startsWith("/") ? rel : null;
  };
  for (const place of [...config.files, config.hooksDir]) {
    const rel = inside(place);
    if (rel === null) continue;
    if (!scan.extra.includes(rel)) scan.extra.push(rel);
    if (lstat(place) !== null && protectedReason(rel) === undefined) {
      capture(place, scan, cache, true);
    }
  }
  // A git directory elsewhere in the workspace (a worktree's or submodule's).
  const gitDir = inside(config.gitDir);
  if (gitDir !== null && config.gitDir !== dotGit && lstat(config.gitDir)?.isDirectory) {
    gitDirEntries(config.gitDir, scan, cache);
  }
}

/** `config`, `hooks/`, `info/` … of a git directory, and of its `modules/*` and `worktrees/*`. */
function gitDirEntries(gitDir: string, scan: ProtectedScan, cache: ScanCache, depth = 0): void {
  for (const name of GIT_DIR_PROTECTED) {
    const path = join(gitDir, name);
    if (lstat(path) !== null) capture(path, scan, cache, true);
  }
  if (depth > 8) return;
  for (const group of ["modules", "worktrees"]) {
    const dir = join(gitDir, group);
    if (!lstat(dir)?.isDirectory) continue;
    for (const item of listing(dir, cache)) {
      if (!item.dir) continue;
      const sub = join(dir, item.name);
      if (group === "worktrees") {
        const link = join(sub, "gitdir");
        if (lstat(link) !== null) capture(link, scan, cache, true);
      }
      gitDirEntries(sub, scan, cache, depth + 1);
    }
  }
}

/** Record a protected path (and, for a directory, everything in it). */
function capture(path: string, scan: ProtectedScan, cache: ScanCache, root: boolean): void {
  const info = lstat(path);
  if (info === null || scan.entries.has(path)) return;
  if (root) scan.roots.push(path);
  const entry: ProtectedEntry = {
    type: info.isSymlink ? "link" : info.isDirectory ? "dir" : info.isFile ? "file" : "other",
    ino: info.ino ?? 0,
    size: info.size,
    mtimeMs: info.mtime?.getTime() ?? null,
    ctimeMs: info.ctime?.getTime() ?? null,
    mode: (info.mode ?? 0) & 0o7777,
  };
  if (entry.type === "link") entry.target = Deno.readLinkSync(path);
  if (entry.type === "file" && info.size <= MAX_KEPT_BYTES) {
    const key = `${entry.ino}:${entry.size}:${entry.mtimeMs}:${entry.ctimeMs}`;
    const kept = cache.contents.get(path);
    if (kept?.key === key) entry.content = kept.content;
    else {
      const read = readVerifiedFileSync("/", path, { maxBytes: MAX_KEPT_BYTES });
      if (read.type === "file" && read.bytes.length === info.size) {
        entry.content = read.bytes;
        cache.contents.set(path, { key, content: read.bytes });
      }
    }
  }
  scan.entries.set(path, entry);
  if (entry.type !== "dir") return;
  for (const item of listing(path, cache)) capture(join(path, item.name), scan, cache, false);
}

/** The entries of a directory, from the cache while it is unchanged. */
function listing(dir: string, cache: ScanCache): { name: string; dir: boolean }[] {
  const info = lstat(dir);
  if (info === null || !info.isDirectory) return [];
  const mtimeMs = info.mtime?.getTime() ?? 0;
  const ctimeMs = info.ctime?.getTime() ?? 0;
  const known = cache.listings.get(dir);
  if (
    known !== undefined && known.ino === info.ino && known.mtimeMs === mtimeMs &&
    known.ctimeMs === ctimeMs && known.readAt - Math.max(mtimeMs, ctimeMs) > SETTLE_MS
  ) {
    return known.items;
  }
  const readAt = Date.now();
  const items: { name: string; dir: boolean }[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) {
      items.push({ name: entry.name, dir: entry.isDirectory && !entry.isSymlink });
    }
  } catch {
    return [];
  }
  items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  cache.listings.set(dir, { ino: info.ino ?? 0, mtimeMs, ctimeMs, readAt, items });
  return items;
}

function lstat(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}
