/**
 * Files inside a workspace that programs of the host run or load later (design §2): a restore
 * never writes them, whatever a checkpoint holds, so undo cannot be used to plant a hook.
 *
 * @module
 */

/**
 * Names that make a path protected wherever they appear in it: git's own data (`.git`, hooks and
 * config included), direnv's `.envrc`, editor task and settings folders, odek's project config.
 */
export const PROTECTED_WORKSPACE_NAMES: readonly string[] = [
  ".git",
  ".envrc",
  ".vscode",
  ".idea",
  ".zed",
  ".odek",
];

/**
 * Whether a restore must leave `path` (relative to the workspace, `/`-separated) alone.
 *
 * @example
 * ```ts
 * import { isProtectedWorkspacePath } from "./protected_workspace_paths.ts";
 * if (!isProtectedWorkspacePath(".vscode/tasks.json")) throw new Error("editor tasks run code");
 * if (isProtectedWorkspacePath("src/envrc.ts")) throw new Error("an ordinary file");
 * ```
 */
export function isProtectedWorkspacePath(path: string): boolean {
  return path.split("/").some((part) => PROTECTED_WORKSPACE_NAMES.includes(part));
}
