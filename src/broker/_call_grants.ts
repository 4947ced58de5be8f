/**
 * What an approved call's granted targets need around it (private to `broker/`): the targets
 * outside the workspace and the added directories get an empty placeholder when missing (a bind
 * needs a source), a target that still cannot be bound (its directory is missing) is left out of
 * the scope and the call is told so, and after the call an untouched placeholder goes. A result
 * that failed the way tools fail when they replace a single granted file by renaming says so.
 *
 * @module
 */
import { withNotes } from "./_result_notes.ts";
import { dirname } from "node:path";
import { isInside } from "../config/validate_workspace.ts";
import type { AddDir } from "../config/add_dirs.ts";
import { createMissingTargets, type Placeholder, removeUntouched } from "./_granted_targets.ts";
import type { PermissionSet } from "./permission_set.ts";
import type { ToolResult } from "./tool_broker.ts";

/** The grants of one call, prepared. */
export interface CallGrants {
  /** The scope, without the targets that could not be granted. */
  set: PermissionSet;
  /** The granted single paths outside the workspace and the added directories. */
  targets: string[];
  /** Placeholders created for missing targets. */
  placeholders: Placeholder[];
  /** Targets left out, each with why. */
  refused: { path: string; why: string }[];
}

/**
 * The write paths of `set` that are granted targets: not the workspace, not an added directory,
 * not inside another write path.
 */
export function grantedTargets(
  set: PermissionSet,
  workspace: string,
  addDirs: readonly AddDir[],
): string[] {
  return set.writePaths.filter((path) =>
    path !== workspace && !addDirs.some((dir) => dir.path === path) &&
    !set.writePaths.some((other) => other !== path && isInside(path, other))
  );
}

/**
 * Create the placeholders of the missing granted targets and leave out those that still do not
 * exist.
 *
 * @param set the call's scope
 * @param targets its granted targets ({@linkcode grantedTargets})
 * @param protectedRoots nothing is created in or over them
 * @param create whether placeholders are made (not for unconfined programs)
 */
export async function prepareGrants(
  set: PermissionSet,
  targets: string[],
  protectedRoots: readonly string[],
  create: boolean,
): Promise<CallGrants> {
  const placeholders = create ? await createMissingTargets(targets, protectedRoots) : [];
  const refused: { path: string; why: string }[] = [];
  const kept: string[] = [];
  for (const target of targets) {
    if (!create || (await exists(target))) {
      kept.push(target);
      continue;
    }
    const why = target.endsWith("/…")
      ? `it stands for everything below ${dirname(target)}, and odek grants single paths`
      : (await exists(dirname(target)))
      ? "it could not be created"
      : `its directory ${
        dirname(target)
      } does not exist (odek creates no directory the approval did not name)`;
    refused.push({ path: target, why });
  }
  const writePaths = set.writePaths.filter((p) => !refused.some((r) => r.path === p));
  return { set: { ...set, writePaths }, targets: kept, placeholders, refused };
}

/** Remove the placeholders nobody touched (`keep`: the call succeeded and owns them now). */
export async function releaseGrants(grants: CallGrants, keep = false): Promise<void> {
  if (!keep) await removeUntouched(grants.placeholders);
}

/**
 * Tell the model what could not be granted, and, when a program failed the way a tool fails that
 * replaces a granted single file by renaming (a temporary file beside it on the read-only parent,
 * or a rename onto the mount point), what works instead.
 *
 * @param result the call's result
 * @param grants its grants
 * @returns the result with the notes appended
 */
export function withGrantNotes(result: ToolResult, grants: CallGrants): ToolResult {
  const notes: string[] = [];
  for (const { path, why } of grants.refused) {
    notes.push(
      `odek could not grant ${path}: ${why}. Create its directory first (with an approved command), or ask the operator to add a directory with --add-dir DIR.`,
    );
  }
  const text = result.ok ? result.output : result.error.message;
  const files = grants.targets.filter((t) => !t.endsWith("/…"));
  if (
    !result.ok && files.length > 0 &&
    /Read-only file system|Device or resource busy|EROFS|EBUSY/i.test(text)
  ) {
    notes.push(
      `odek granted only ${
        files.join(", ")
      }; tools that replace files by renaming cannot write it — use write_file, or --add-dir ${
        dirname(files[0])
      }`,
    );
  }
  return withNotes(result, notes);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
