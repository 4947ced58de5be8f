/**
 * The scope one approved call runs with, for a built-in tool and a library tool alike.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { TrustLevel, Verdict } from "../danger/verdict.ts";
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
export interface CallScopeOptions {
  resolveWorkspace: () => Promise<string>;
  resolveAddDirs?: () => Promise<AddDir[]>;
  trustLevel: TrustLevel;
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
  const { name } = invocation;
  const denied = (message: string) => ({
    refusal: { ok: false as const, error: { kind: "denied" as const, message } },
  });
  let workspace: string;
  let addDirs: AddDir[];
  try {
    workspace = await options.resolveWorkspace();
    addDirs = (await options.resolveAddDirs?.()) ?? [];
  } catch (error) {
    if (error instanceof OdekError && error.code === "WORKSPACE_INVALID") {
      return denied(`${name} was not run: ${error.message}`);
    }
    throw error;
  }
  const { trustLevel, context } = options;
  const refused = verdict.decision === "deny" ||
    verdict.parts.some((part) => part.riskClass === "blocked");
  if (refused) return denied(`${name} was refused: ${verdict.reason}`);
  if (trustLevel === "untrusted" && verdict.parts.some((p) => p.riskClass !== "read")) {
    const classes = verdict.parts.map((p) => p.riskClass).join(", ");
    return denied(`${name} was refused: an untrusted run may only read (this is ${classes})`);
  }
  // Granted targets become binds: resolve their links first (see _real_targets.ts).
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
  return { set: derive(), workspace, addDirs, derive };
}
