/**
 * A call whose scope can write the workspace, between the workspace guard's `begin` and `end`
 * (private to `broker/`): the protected files it may not change are bound read-only, and what it
 * changed of them anyway (new ones, a replaced `.git`) is reverted and reported after it — or,
 * for a background job, when the job ends.
 *
 * @module
 */
import { endPhase, startPhase } from "../_util/step_phase.ts";
import { basename } from "node:path";
import { isInside } from "../config/validate_workspace.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { ProtectedReverts } from "./_protected_reverts.ts";
import type { ToolInvocation, ToolResult } from "./tool_broker.ts";
import type { RevertedPath, WorkspaceFacts, WorkspaceGuard } from "./workspace_guard.ts";

/** What the guarded call gets. */
export interface GuardedRun {
  /** The workspace facts of the call's scope (`undefined` when its scope is read-only). */
  facts: WorkspaceFacts | undefined;
  /** Hand the end of the check to something outliving the call (a job); returns that end. */
  defer: () => () => RevertedPath[];
}

/**
 * Run `run` inside the guard when `writable`.
 *
 * @param guard the workspace guard
 * @param reverts where what was undone is reported
 * @param call the call, its key (unique per call), its workspace and its resolved verdict
 * @param writePaths the write paths of its scope
 * @param run the call itself
 * @returns the result, with a note for the model when something was undone
 */
export async function guardedCall(
  guard: WorkspaceGuard,
  reverts: ProtectedReverts,
  call: { invocation: ToolInvocation; key: string; workspace: string; verdict: Verdict },
  writePaths: readonly string[],
  run: (guarded: GuardedRun) => Promise<ToolResult>,
): Promise<ToolResult> {
  const { invocation, key, workspace } = call;
  const writable = writePaths.includes(workspace);
  // What the approval names is kept: its granted targets, and a repository it creates (the
  // classifier names the new `.git` of `git init` and `git clone`).
  const approved = [
    ...writePaths.filter((p) => p !== workspace),
    ...call.verdict.parts.flatMap((part) => part.targets).filter((t) =>
      isInside(t, workspace) && t !== workspace && basename(t) === ".git"
    ),
  ];
  let facts: WorkspaceFacts | undefined;
  if (writable) {
    const beginning = startPhase();
    const begun = guard.begin(workspace, key, approved);
    endPhase("broker:guard-begin", beginning);
    reverts.report(invocation, begun.reverted);
    facts = begun.facts;
  }
  let ended = !writable;
  let deferred = false;
  const finish = () => {
    if (ended) return [];
    ended = true;
    const ending = startPhase();
    const undone = guard.end(workspace, key, approved);
    endPhase("broker:guard-end", ending);
    return undone;
  };
  const end = () => (deferred ? [] : finish());
  try {
    const result = await run({
      facts,
      defer: () => {
        deferred = true;
        return finish;
      },
    });
    const undone = end();
    reverts.report(invocation, undone);
    return reverts.annotate(result, undone, workspace);
  } finally {
    end();
  }
}
