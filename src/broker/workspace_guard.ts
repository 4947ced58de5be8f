/**
 * Keeping the files the host runs later (hooks, `.git/config`, `.envrc`, editor settings, odek's
 * project configuration: `tools/_catalogue/protected_paths.ts`) as they were before contained
 * work ran (issue 13). The existing ones are bound read-only into every sandbox that can write the
 * workspace; missing ones cannot be (bwrap would leave an empty placeholder where it mounted), so
 * after every such call the guard compares the protected set with the state before and reverts
 * what is new or changed, except what the call's approval named.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import type { RepoProgram } from "../danger/repo_programs.ts";
import {
  type ProtectedEntry,
  type ProtectedScan,
  ScanCache,
  scanProtected,
} from "./_protected_scan.ts";

/** What the classifier and the permission derivation need to know about the workspace. */
export interface WorkspaceFacts {
  /** The outermost protected paths that exist (absolute): bound read-only. */
  protectedRoots: string[];
  /** Protected places the repositories' configuration names, relative to the workspace. */
  protectedExtra: string[];
  /** Programs the workspace's repositories configure. */
  repoPrograms: RepoProgram[];
  /** Every `.git` entry in the workspace (absolute). */
  repositories: string[];
  /** Set when the scan stopped early. */
  truncated?: string;
}

/** One protected path a call changed and the guard undid. */
export interface RevertedPath {
  path: string;
  /** `removed`: it was new; `restored`: it was changed or deleted and is back as it was. */
  action: "removed" | "restored" | "kept";
  /** For `kept`: why it could not be restored. */
  why?: string;
}

/** Options for {@linkcode WorkspaceGuard}. */
export interface WorkspaceGuardOptions {
  /** The user's home (for `~/` in git configuration). */
  home: string;
}

/**
 * The protected files of one session host's workspace. Every method is synchronous: a scan and
 * a revert never interleave with other work of the core.
 *
 * @example A new hook written by contained work is removed
 * ```ts
 * import { WorkspaceGuard } from "./workspace_guard.ts";
 * const ws = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.mkdirSync(`${ws}/.git/hooks`, { recursive: true });
 * const guard = new WorkspaceGuard({ home: "/nonexistent" });
 * guard.begin(ws, "c1");
 * Deno.writeTextFileSync(`${ws}/.git/hooks/pre-commit`, "#!/bin/sh\n");
 * const undone = guard.end(ws, "c1", []);
 * if (undone[0]?.action !== "removed") throw new Error(JSON.stringify(undone));
 * Deno.removeSync(ws, { recursive: true });
 * ```
 */
export class WorkspaceGuard {
  readonly #home: string;
  readonly #cache = new ScanCache();
  #workspace: string | null = null;
  #baseline: ProtectedScan | null = null;
  /** Calls and background jobs that can write the workspace now, with what they were granted. */
  readonly #writers = new Map<string, readonly string[]>();

  /** @param options the home */
  constructor(options: WorkspaceGuardOptions) {
    this.#home = options.home;
  }

  /**
   * The workspace's protected files and repository programs now. While nothing that can write
   * the workspace runs, what is found is the new baseline (the operator's own edits count).
   *
   * @param workspace the workspace (real path)
   * @returns the facts
   */
  facts(workspace: string): WorkspaceFacts {
    const scan = this.#scan(workspace);
    if (this.#writers.size === 0) this.#baseline = scan;
    return factsOf(scan);
  }

  /**
   * A call (or background job) that can write the workspace starts. While others run, changes
   * they made since the baseline are reverted first.
   *
   * @param workspace the workspace
   * @param id the call or job
   * @param granted the paths its approval names (their changes are kept)
   * @returns what was undone of the others' changes, and the facts for this call's scope
   */
  begin(
    workspace: string,
    id: string,
    granted: readonly string[] = [],
  ): { reverted: RevertedPath[]; facts: WorkspaceFacts } {
    const reverted = this.#writers.size === 0 ? [] : this.#settle(workspace);
    if (this.#writers.size === 0) this.#baseline = this.#scan(workspace);
    this.#writers.set(id, granted);
    return { reverted, facts: factsOf(this.#baseline!) };
  }

  /**
   * A call (or background job) that could write the workspace ended: every protected path that
   * is new or changed since the baseline, and that no running writer's approval names, is
   * removed or restored.
   *
   * @param workspace the workspace
   * @param id the call or job given to {@linkcode WorkspaceGuard.begin}
   * @param granted the paths its approval names
   * @returns what was undone (empty when nothing changed)
   */
  end(workspace: string, id: string, granted: readonly string[] = []): RevertedPath[] {
    this.#writers.set(id, [...(this.#writers.get(id) ?? []), ...granted]);
    try {
      return this.#settle(workspace);
    } finally {
      this.#writers.delete(id);
      if (this.#writers.size === 0 && this.#workspace === workspace) {
        this.#baseline = this.#scan(workspace);
      }
    }
  }

  #scan(workspace: string): ProtectedScan {
    if (this.#workspace !== workspace) {
      this.#workspace = workspace;
      this.#baseline = null;
    }
    return scanProtected(workspace, this.#home, this.#cache);
  }

  /** Revert what changed since the baseline, but what a writer was granted; rebaseline. */
  #settle(workspace: string): RevertedPath[] {
    const before = this.#baseline;
    const after = this.#scan(workspace);
    if (before === null) {
      this.#baseline = after;
      return [];
    }
    const granted = [...this.#writers.values()].flat();
    const kept = (path: string) =>
      granted.some((g) => path === g || path.startsWith(`${g}/`) || g.startsWith(`${path}/`));
    const out = revert(workspace, before, after, kept);
    const settled = this.#scan(workspace);
    // What a writer was granted is the new state of those paths.
    this.#baseline = out.length === 0 && !changedAny(before, after) ? before : settled;
    return out;
  }
}

function factsOf(scan: ProtectedScan): WorkspaceFacts {
  return {
    protectedRoots: [...scan.roots],
    protectedExtra: [...scan.extra],
    repoPrograms: [...scan.programs],
    repositories: [...scan.repositories],
    ...(scan.truncated ? { truncated: scan.truncated } : {}),
  };
}

function changedAny(before: ProtectedScan, after: ProtectedScan): boolean {
  if (before.entries.size !== after.entries.size) return true;
  for (const [path, entry] of after.entries) {
    const old = before.entries.get(path);
    if (old === undefined || differs(old, entry)) return true;
  }
  return false;
}

function differs(a: ProtectedEntry, b: ProtectedEntry): boolean {
  if (a.type !== b.type) return true;
  if (a.type === "link") return a.target !== b.target;
  if (a.type !== "file") return a.mode !== b.mode;
  if (a.mode !== b.mode) return true;
  if (a.content !== undefined && b.content !== undefined) return !sameBytes(a.content, b.content);
  return a.ino !== b.ino || a.size !== b.size || a.mtimeMs !== b.mtimeMs;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Undo the differences between `before` and `after` that `kept` does not cover. */
function revert(
  workspace: string,
  before: ProtectedScan,
  after: ProtectedScan,
  kept: (path: string) => boolean,
): RevertedPath[] {
  const out: RevertedPath[] = [];
  const removed = new Set<string>();
  const under = (path: string) => [...removed].some((r) => path.startsWith(`${r}/`));
  // New protected paths (and new repositories, whole) go, outermost first.
  const added = [...after.entries.keys()].filter((p) => !before.entries.has(p) && !kept(p));
  const newRepos = after.repositories.filter((r) => !before.repositories.includes(r) && !kept(r));
  for (const path of [...newRepos, ...added].sort((a, b) => a.length - b.length)) {
    if (removed.has(path) || under(path)) continue;
    if (!insideWorkspace(workspace, path)) continue;
    try {
      Deno.removeSync(path, { recursive: true });
      removed.add(path);
      out.push({ path, action: "removed" });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        out.push({ path, action: "kept", why: (error as Error).message });
      }
    }
  }
  // Changed or deleted ones come back as they were, parents first.
  const paths = [...before.entries.keys()].sort((a, b) => a.length - b.length);
  for (const path of paths) {
    const old = before.entries.get(path)!;
    const now = after.entries.get(path);
    if (kept(path) || (now !== undefined && !differs(old, now))) continue;
    if (!insideWorkspace(workspace, path)) continue;
    const why = restore(workspace, path, old);
    out.push(why === null ? { path, action: "restored" } : { path, action: "kept", why });
  }
  return out;
}

/** Put one path back as `entry` describes it; `null` on success, else why not. */
function restore(workspace: string, path: string, entry: ProtectedEntry): string | null {
  if (entry.type === "other") return "it is not a file, directory or link";
  if (entry.type === "file" && entry.content === undefined) {
    return "it is larger than odek keeps a copy of";
  }
  try {
    realParents(workspace, dirname(path));
    const now = lstatOrNull(path);
    if (now !== null && !(entry.type === "dir" && now.isDirectory)) {
      Deno.removeSync(path, { recursive: true });
    }
    if (entry.type === "dir") {
      if (now === null || !now.isDirectory) Deno.mkdirSync(path, { mode: entry.mode });
      Deno.chmodSync(path, entry.mode);
    } else if (entry.type === "link") Deno.symlinkSync(entry.target!, path);
    else {
      const temp = join(dirname(path), `.odek-restore-${crypto.randomUUID().slice(0, 8)}`);
      Deno.writeFileSync(temp, entry.content!, { createNew: true, mode: entry.mode });
      Deno.chmodSync(temp, entry.mode);
      Deno.renameSync(temp, path);
    }
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Make every directory from the workspace down to `dir` a real directory (no link, no file). */
function realParents(workspace: string, dir: string): void {
  let current = workspace;
  for (const part of relative(workspace, dir).split("/").filter(Boolean)) {
    current = join(current, part);
    const info = lstatOrNull(current);
    if (info?.isDirectory) continue;
    if (info !== null) Deno.removeSync(current, { recursive: true }); // a link or file put there
    Deno.mkdirSync(current, { mode: 0o755 });
  }
}

function insideWorkspace(workspace: string, path: string): boolean {
  const rel = relative(workspace, path);
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith("/");
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}
