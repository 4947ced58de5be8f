/**
 * One `shell` call (private to `broker/`): its granted targets prepared (placeholders, left-out
 * targets told), its egress credential issued and revoked, its sandbox killed by the broker's
 * `close()`, and its placeholders released once no other call in flight uses the target.
 *
 * @module
 */
import type { AddDir } from "../config/add_dirs.ts";
import { grantedTargets, prepareGrants, releaseGrants, withGrantNotes } from "./_call_grants.ts";
import type { SandboxStandby } from "./_sandbox_standby.ts";
import type { EgressProxy } from "./egress_proxy.ts";
import type { PermissionSet } from "./permission_set.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import { runShell } from "./run_shell.ts";
import type { ToolResult } from "./tool_broker.ts";

/** What a shell call needs of its broker. */
export interface ShellCallOptions {
  set: PermissionSet;
  context: SandboxContext;
  addDirs: readonly AddDir[];
  timeoutMs: number;
  standby: SandboxStandby;
  /** The broker's controllers of calls in flight (its `close()` aborts them). */
  shells: Set<AbortController>;
  /** Calls in flight per granted target, shared by the broker's calls. */
  targetUsers: Map<string, number>;
  egress?: EgressProxy;
  signal?: AbortSignal;
  /** Nothing of the call takes effect before this resolves (see `RunShellOptions.ready`). */
  ready?: Promise<void>;
}

/**
 * Run one approved shell command.
 *
 * @param command the command
 * @param options its scope and the broker's shared state
 * @returns the result, with notes on what could not be granted
 */
export async function runShellCall(
  command: string,
  options: ShellCallOptions,
): Promise<ToolResult> {
  const { set, context, signal, targetUsers } = options;
  // Granted targets: write paths other than the workspace and the added directories, and not
  // inside another writable path (that one's bind already covers them).
  const granted = grantedTargets(set, context.workspace, options.addDirs);
  // Placeholders for granted targets are files odek creates for the call: not before `ready`.
  let ready = options.ready;
  if (granted.length > 0 && ready !== undefined) {
    await ready;
    ready = undefined;
  }
  for (const target of granted) targetUsers.set(target, (targetUsers.get(target) ?? 0) + 1);
  // After approval, before the sandbox: a missing granted target gets a placeholder to bind;
  // one that cannot have one (its directory is missing) is left out, and the call told why.
  // Unconfined (`sandbox: "none"`), the program writes the real path itself.
  const grants = await prepareGrants(set, granted, context.protectedRoots, context.mode !== "none");
  const placeholders = grants.placeholders;
  const credential = set.network.type !== "none" ? options.egress?.issue() : undefined;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) controller.abort();
  options.shells.add(controller);
  try {
    const result = await runShell(command, {
      set: grants.set,
      context,
      timeoutMs: options.timeoutMs,
      signal: controller.signal,
      // A spare started earlier may bind an older placeholder: start this one on demand.
      ...(placeholders.length === 0 ? { standby: options.standby } : {}),
      ...(credential ? { egressToken: credential.token } : {}),
      ...(ready ? { ready } : {}),
    });
    return withGrantNotes(result, grants);
  } finally {
    credential?.revoke();
    options.shells.delete(controller);
    signal?.removeEventListener("abort", onAbort);
    for (const target of granted) targetUsers.set(target, (targetUsers.get(target) ?? 1) - 1);
    const idle = placeholders.filter((p) => (targetUsers.get(p.target) ?? 0) === 0);
    await releaseGrants({ ...grants, placeholders: idle });
    for (const target of granted) if (targetUsers.get(target) === 0) targetUsers.delete(target);
  }
}
