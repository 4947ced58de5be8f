/**
 * One file-tool call (private to `broker/`), in the file child for its scope. Targets its
 * approval granted outside the workspace and the added directories are bound as single files (a
 * placeholder when missing) and written in place; such a child serves only this call, since its
 * placeholder may go. A read-only file system is named as such, and blamed on the scope only
 * when the scope kept the workspace read-only.
 *
 * @module
 */
import type { AddDir } from "../config/add_dirs.ts";
import { isInside } from "../config/validate_workspace.ts";
import { grantedTargets, prepareGrants, releaseGrants } from "./_call_grants.ts";
import type { PermissionSet } from "./permission_set.ts";
import type { ToolChildPool } from "./tool_child_pool.ts";
import type { ToolInvocation, ToolResult } from "./tool_broker.ts";

/** The scope and the workspace facts of one file-tool call. */
export interface FileCallOptions {
  set: PermissionSet;
  workspace: string;
  addDirs: readonly AddDir[];
  /** Protected places besides the fixed names (relative to the workspace). */
  protectedExtra: readonly string[];
  signal?: AbortSignal;
}

/**
 * Run one file-tool call.
 *
 * @param pool the file children
 * @param protectedRoots nothing is created in or over them
 * @param invocation the call
 * @param args its validated arguments
 * @param options its scope
 * @returns the result
 */
export async function runFileCall(
  pool: ToolChildPool,
  protectedRoots: readonly string[],
  invocation: Pick<ToolInvocation, "name">,
  args: Record<string, unknown>,
  options: FileCallOptions,
): Promise<ToolResult> {
  const { set, workspace } = options;
  const granted = grantedTargets(set, workspace, options.addDirs);
  const writes = invocation.name === "write_file" || invocation.name === "patch";
  const grants = await prepareGrants(set, writes ? granted : [], protectedRoots, true);
  if (grants.refused.length > 0) {
    const { path, why } = grants.refused[0];
    return {
      ok: false,
      error: {
        kind: "denied",
        message:
          `${invocation.name} was not run: odek cannot grant ${path}: ${why}. Create the directory first, or ask the operator to add it with --add-dir DIR.`,
      },
    };
  }
  // Targets inside the workspace an approval named (a protected file) are granted too.
  const inside = set.writePaths.filter((p) => p !== workspace && isInside(p, workspace));
  let result: ToolResult | undefined;
  try {
    result = await pool.call(invocation.name, args, {
      set: grants.set,
      workspace,
      roots: options.addDirs.map((dir) => dir.path),
      grants: [...grants.targets, ...inside],
      protectedExtra: [...options.protectedExtra],
      oneShot: grants.targets.length > 0,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (
      !result.ok && /read-only file system/i.test(result.error.message) &&
      !set.writePaths.includes(workspace)
    ) {
      const message =
        `${result.error.message} (the scope of this call keeps the workspace read-only)`;
      result = { ...result, error: { ...result.error, message } };
    }
    return result;
  } finally {
    await releaseGrants(grants, result?.ok === true);
  }
}
