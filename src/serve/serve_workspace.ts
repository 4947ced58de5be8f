/**
 * The workspace of a new serve session: a folder of its own under the dedicated workspace, or a
 * named one under a `--workspace-root`.
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import {
  dedicatedWorkspacePath,
  provisionDedicatedWorkspace,
} from "../config/dedicated_workspace.ts";
import { isInside } from "../config/validate_workspace.ts";
import type { Runtime } from "../runtime/runtime.ts";

/**
 * Choose (and for its own folder, create) a new session's workspace.
 *
 * @param runtime for its paths
 * @param allowedRoots roots a named workspace must lie under
 * @param sessionId the new session
 * @param named the workspace the request named, if any
 * @returns the workspace's real path
 * @throws {OdekError} `WORKSPACE_INVALID` when `named` does not exist or lies outside the roots
 *
 * @example A named workspace outside every root is refused
 * ```ts
 * import { workspaceFor } from "./serve_workspace.ts";
 * import type { Runtime } from "../runtime/runtime.ts";
 * const runtime = { paths: { odekHome: "/nonexistent", installDir: "/nonexistent" } } as Runtime;
 * const refused = await workspaceFor(runtime, [], "s1", Deno.cwd()).then(() => false, () => true);
 * if (!refused) throw new Error("allowed");
 * ```
 */
export async function workspaceFor(
  runtime: Runtime,
  allowedRoots: readonly string[],
  sessionId: string,
  named: string | undefined,
): Promise<string> {
  const { odekHome, installDir } = runtime.paths;
  if (named !== undefined) {
    const real = await Deno.realPath(named).catch(() => {
      throw new OdekError("WORKSPACE_INVALID", `The workspace ${named} does not exist.`);
    });
    const roots = await Promise.all(allowedRoots.map((r) => Deno.realPath(r).catch(() => r)));
    if (!roots.some((root) => real === root || isInside(real, root))) {
      throw new OdekError(
        "WORKSPACE_INVALID",
        `The workspace ${named} is not under a root this server allows (${
          roots.join(", ") || "none: start odek serve with --workspace-root <dir>"
        }).`,
      );
    }
    return real;
  }
  const base = await provisionDedicatedWorkspace(dedicatedWorkspacePath(odekHome), {
    protectedRoots: [odekHome, installDir],
  });
  const own = join(base, sessionId);
  await Deno.mkdir(own, { mode: 0o700 });
  return own;
}
