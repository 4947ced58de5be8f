/**
 * Files inside a workspace that programs of the host run or load later (design §2): a restore
 * never writes them, whatever a checkpoint holds, so undo cannot be used to plant a hook. The
 * names are the one definition the classifier, the file tools and the core's scan use
 * (`tools/_catalogue/protected_paths.ts`), plus git's own data anywhere.
 *
 * @module
 */
import { protectedReason } from "../../tools/_catalogue/protected_paths.ts";

/**
 * Names that make a path protected wherever they appear in it, besides the catalogue's
 * protected paths: a `.git` entry's data (never recorded by a checkpoint either).
 */
export const PROTECTED_WORKSPACE_NAMES: readonly string[] = [".git"];

/**
 * Whether a restore must leave `path` (relative to the workspace, `/`-separated) alone.
 *
 * @param path relative to the workspace, `/`-separated
 * @param extra the places the repository's configuration names (its `core.hooksPath` inside the
 *   workspace, included configuration): protected with what is inside them. @default []
 *
 * @example
 * ```ts
 * import { isProtectedWorkspacePath } from "./protected_workspace_paths.ts";
 * if (!isProtectedWorkspacePath(".vscode/tasks.json")) throw new Error("editor tasks run code");
 * if (!isProtectedWorkspacePath("odek.jsonc")) throw new Error("odek's project config");
 * if (!isProtectedWorkspacePath("lefthook.yml")) throw new Error("hook manager config");
 * if (isProtectedWorkspacePath("src/envrc.ts")) throw new Error("an ordinary file");
 * ```
 */
export function isProtectedWorkspacePath(path: string, extra: readonly string[] = []): boolean {
  return path.split("/").some((part) => PROTECTED_WORKSPACE_NAMES.includes(part)) ||
    protectedReason(path, extra) !== undefined;
}
