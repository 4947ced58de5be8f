/**
 * One call of a library tool (`defineTool`) in its module-tool child (private to `broker/`): the
 * same admission, scope and workspace guard as a built-in call, so a library tool that may write
 * the workspace cannot leave a hook or `.git/config` behind for the host to run later.
 *
 * @module
 */
import type { ModuleToolPools } from "./_module_tools.ts";
import type { ProtectedReverts } from "./_protected_reverts.ts";
import { callScope, type CallScopeOptions } from "./_call_scope.ts";
import { guardedCall } from "./_guarded_call.ts";
import type { ModuleTool, ToolInvocation, ToolResult } from "./tool_broker.ts";
import type { WorkspaceGuard } from "./workspace_guard.ts";

/** What {@linkcode runModuleCall} needs of its broker. */
export interface ModuleCallHost {
  modules: ModuleToolPools;
  scope: CallScopeOptions;
  guard: WorkspaceGuard;
  reverts: ProtectedReverts;
  /** A key unique to this call (for the guard). */
  key: string;
  /** Run the child's call, adding the egress proxy's refusals to its result. */
  withEgress: (call: () => Promise<ToolResult>) => Promise<ToolResult>;
}

/**
 * Run an approved library-tool call: its module resolved and checked, its scope derived from the
 * verdict it was approved with (protected files read-only when the scope writes the workspace),
 * and what it changed of protected files undone and reported after it.
 *
 * @param invocation the call; it must carry its verdict
 * @param tool its module and timeout
 * @param host the broker's parts
 * @param signal aborts the call
 * @returns the tool result; refusals are data
 * @throws what `resolveWorkspace` throws other than `WORKSPACE_INVALID`
 */
export async function runModuleCall(
  invocation: ToolInvocation,
  tool: ModuleTool,
  host: ModuleCallHost,
  signal?: AbortSignal,
): Promise<ToolResult> {
  const module = await host.modules.resolve(invocation, tool);
  if ("refusal" in module) return module.refusal;
  const scope = await callScope(invocation, module.verdict, host.scope);
  if ("refusal" in scope) return scope.refusal;
  const { workspace, addDirs } = scope;
  const roots = addDirs.map((dir) => dir.path);
  const call = { invocation, key: host.key, workspace, verdict: module.verdict };
  return await guardedCall(host.guard, host.reverts, call, scope.set.writePaths, ({ facts }) => {
    const set = facts ? scope.derive(facts.protectedRoots) : scope.set;
    return host.withEgress(() =>
      module.pool.call(invocation.name, invocation.args, { set, workspace, roots, signal })
    );
  });
}
