/**
 * Where a workspace's shadow repository lives: `<dir>/<first 16 hex digits of the SHA-256 of the
 * workspace's path>.git`.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

/**
 * The shadow repository of `workspace` under `dir` (e.g. to delete the one of a scratch workspace
 * that is gone).
 *
 * @param dir where the shadow repositories live (`ODEK_HOME/checkpoints`)
 * @param workspace the workspace's real path
 * @returns the repository's path
 *
 * @example
 * ```ts
 * import { shadowGitdir } from "./shadow_gitdir.ts";
 * const gitdir = shadowGitdir("/home/me/.odek/checkpoints", "/srv/ws");
 * if (!/^\/home\/me\/\.odek\/checkpoints\/[0-9a-f]{16}\.git$/.test(gitdir)) throw new Error(gitdir);
 * ```
 */
export function shadowGitdir(dir: string, workspace: string): string {
  const key = createHash("sha256").update(workspace).digest("hex").slice(0, 16);
  return join(dir, `${key}.git`);
}
