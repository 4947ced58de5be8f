/**
 * The scope one approved call runs with, for a built-in tool and a library tool alike.
 *
 * @module
 */
import { admitScope, type AdmitScopeOptions } from "./_admit_call.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { Verdict } from "../danger/verdict.ts";
import { derivePermissions } from "./derive_permissions.ts";
import type { PermissionSet } from "./permission_set.ts";
import { realTargets } from "./_real_targets.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import type { ToolInvocation, ToolResult } from "./tool_broker.ts";

/** The call's scope, or the refusal the model is told. */
export type CallScope =
  | { refusal: ToolResult }
  | {
    set: PermissionSet;
    workspace: string;
    addDirs: AddDir[];
    /** The set again with the workspace's existing protected files read-only. */
    derive: (protectedPaths: readonly string[]) => PermissionSet;
  };

/** What {@linkcode callScope} reads of the broker. */
export interface CallScopeOptions extends AdmitScopeOptions {
  context: Pick<SandboxContext, "protectedRoots" | "home">;
}

/**
 * The scope of an approved call: the workspace and the added directories validated now (never
 * cached), the verdict's refusals (a `deny`, a `blocked` part, anything but reads in an
 * `untrusted` run), the granted targets' links resolved, then `derivePermissions`.
 *
 * @param invocation the validated call
 * @param verdict its verdict
 * @param options the broker's resolvers, trust level and paths
 * @returns the permission set with the workspace and added directories, or a `denied` refusal
 * @throws what `resolveWorkspace` throws other than `WORKSPACE_INVALID`
 */
export async function callScope(
  invocation: ToolInvocation,
  verdict: Verdict,
  options: CallScopeOptions,
): Promise<CallScope> {
  const admitted = await admitScope(invocation.name, verdict, options);
  if ("ok" in admitted) return { refusal: admitted };
  const { workspace, addDirs } = admitted;
  const { derive } = await scopeDeriver(invocation, verdict, workspace, addDirs, options);
  return { set: derive(), workspace, addDirs, derive };
}

/**
 * The granted targets' links resolved (they become binds: see `_real_targets.ts`), and the
 * derivation of the call's permission set from them, with the workspace's existing protected
 * files read-only when given.
 *
 * @returns the verdict with its targets resolved, and the deriver
 */
export async function scopeDeriver(
  invocation: ToolInvocation,
  verdict: Verdict,
  workspace: string,
  addDirs: AddDir[],
  options: Pick<CallScopeOptions, "trustLevel" | "context">,
): Promise<{ real: Verdict; derive: (protectedPaths?: readonly string[]) => PermissionSet }> {
  const { trustLevel, context } = options;
  const real = await realTargets(verdict, workspace, {
    protectedRoots: context.protectedRoots,
    home: context.home,
  });
  const derive = (protectedPaths: readonly string[] = []) =>
    derivePermissions(invocation, real, trustLevel, {
      workspace,
      protectedRoots: context.protectedRoots,
      addDirs,
      protectedPaths,
    });
  return { real, derive };
}
