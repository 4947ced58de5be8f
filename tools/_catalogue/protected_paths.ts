/**
 * The files inside a workspace that the host runs later, outside every sandbox (issue 13): git's
 * hooks and configuration, hook managers' configuration (lefthook, pre-commit), direnv's and
 * mise's per-directory files, editor and container settings that run commands, odek's own
 * project configuration. The one definition of their names, shared by the classifier (writes to
 * them are `system_write` and always ask), the file-tool children (which refuse them unless
 * granted), the core's scan (`src/broker/workspace_guard.ts`, which binds the existing ones
 * read-only and reverts what a call changed) and checkpoints (`src/checkpoint/`: a restore never
 * writes them).
 *
 * @module
 */

/** Entries of a `.git` directory that configure what git runs (besides objects, refs, index …). */
export const GIT_DIR_PROTECTED = ["config", "config.worktree", "commondir", "hooks", "info"];

/** Directories protected whole, at any depth: editor and container settings that run commands. */
export const PROTECTED_DIR_NAMES = [".vscode", ".idea", ".zed", ".devcontainer"];

/**
 * Files protected at any depth: direnv's `.envrc` and mise's configuration (run or loaded when the
 * user enters the directory), and the hook managers' configuration git's hooks execute at commit
 * time (lefthook, pre-commit).
 */
export const PROTECTED_FILE_NAMES = [
  ".envrc",
  "mise.toml",
  ".mise.toml",
  "mise.local.toml",
  "lefthook.yml",
  "lefthook.yaml",
  ".lefthook.yml",
  ".lefthook.yaml",
  "lefthook-local.yml",
  ".pre-commit-config.yaml",
];

/** Entries protected only at the workspace's top: odek's project configuration (both names). */
export const PROTECTED_TOP_NAMES = ["odek.jsonc", "odek.json", ".odek", ".devcontainer.json"];

/**
 * Why a path inside the workspace is a file the host runs later, or `undefined` when it is not.
 * Static names only: the core adds the places a repository's configuration names (its
 * `core.hooksPath` inside the workspace, included configuration files) as `extra`.
 *
 * - any `.git` entry (the workspace's repository, a nested repository or a worktree's `.git`
 *   file) itself, and its `config`, `config.worktree`, `commondir`, `hooks/`, `info/`, and the
 *   same under `modules/<name>/` (submodules, at any depth) and `worktrees/<name>/`;
 * - `.envrc`, `mise.toml`, lefthook's and pre-commit's configuration, and everything in
 *   `.vscode/`, `.idea/`, `.zed/`, `.devcontainer/`, at any depth;
 * - `odek.jsonc`, `odek.json`, `.odek/` and `.devcontainer.json` at the top.
 *
 * @param relative the path relative to the workspace, `/`-separated and normalised (no `.` or
 *   `..` components; `""` is the workspace itself)
 * @param extra protected paths relative to the workspace (each protects itself and what is
 *   inside it). @default []
 * @returns a short reason, e.g. `git hooks`, or `undefined`
 *
 * @example
 * ```ts
 * import { protectedReason } from "./protected_paths.ts";
 * if (protectedReason(".git/hooks/pre-commit") === undefined) throw new Error("hooks");
 * if (protectedReason(".git/objects/ab/cdef") !== undefined) throw new Error("objects are not protected");
 * if (protectedReason("src/.envrc") === undefined) throw new Error(".envrc at any depth");
 * if (protectedReason(".husky/pre-commit", [".husky"]) === undefined) throw new Error("hooksPath");
 * ```
 */
export function protectedReason(
  relative: string,
  extra: readonly string[] = [],
): string | undefined {
  if (relative === "" || relative === ".") return undefined;
  for (const path of extra) {
    if (relative === path || relative.startsWith(`${path}/`)) {
      return "a file the repository's configuration runs or includes";
    }
  }
  const parts = relative.split("/");
  if (parts.length >= 1 && PROTECTED_TOP_NAMES.includes(parts[0])) {
    return "odek's or the container's project configuration";
  }
  for (let i = 0; i < parts.length; i++) {
    const name = parts[i];
    if (PROTECTED_DIR_NAMES.includes(name)) return `editor or container settings (${name})`;
    if (PROTECTED_FILE_NAMES.includes(name) && i === parts.length - 1) {
      return name === ".envrc"
        ? "direnv's .envrc"
        : `a file the host runs or loads later (${name})`;
    }
    if (name !== ".git") continue;
    const reason = gitDirReason(parts.slice(i + 1));
    if (reason !== undefined) return reason;
    return undefined; // objects, refs, the index …: everyday git writes them
  }
  return undefined;
}

/** Inside a `.git` directory (`rest` after it): its configuration and hooks, not its data. */
function gitDirReason(rest: string[]): string | undefined {
  if (rest.length === 0) return "a git repository's .git";
  let at = 0;
  // modules/<name>/… (nested: modules/a/modules/b/…) and worktrees/<name>/… hold git dirs too.
  while (rest[at] === "modules" || rest[at] === "worktrees") {
    if (rest.length <= at + 2) return undefined; // the directory itself, or its name
    at += 2;
  }
  const entry = rest[at];
  if (entry === "hooks") return "git hooks";
  if (entry === "info") return "git's info directory";
  if (entry === "gitdir" && rest[at - 2] === "worktrees") return "a worktree's git directory link";
  if (GIT_DIR_PROTECTED.includes(entry)) return "git configuration";
  return undefined;
}

/**
 * Whether a protected path (a `protectedReason` hit) is the workspace's own repository or a
 * nested one as a whole (`.git` itself), which deleting or replacing loses the history of.
 *
 * @param relative the path relative to the workspace
 * @returns true for `.git` and `<dir>/.git`
 *
 * @example
 * ```ts
 * import { isRepositoryPath } from "./protected_paths.ts";
 * if (!isRepositoryPath(".git") || isRepositoryPath(".git/hooks")) throw new Error();
 * ```
 */
export function isRepositoryPath(relative: string): boolean {
  return relative === ".git" || relative.endsWith("/.git");
}
