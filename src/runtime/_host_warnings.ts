/**
 * Warnings a session host gives when it opens (private to `runtime/`): about its workspace (a
 * read-only file system, too large to scan whole for protected files) and its journal (a
 * damaged tail set aside).
 *
 * @module
 */
import { readOnlyWorkspace } from "../config/read_only_workspace.ts";
import type { TornTail } from "../session/session_store.ts";

/**
 * What the operator should know about the workspace before the first call.
 *
 * @param workspace the workspace (real path)
 * @param truncated the protected-file scan's `truncated`, when it stopped early
 * @returns one sentence per problem
 */
export async function workspaceWarnings(
  workspace: string,
  truncated: string | undefined,
): Promise<string[]> {
  const warnings: string[] = [];
  const readOnly = await readOnlyWorkspace(workspace);
  if (readOnly) warnings.push(readOnly);
  if (truncated) {
    warnings.push(
      `the workspace is too large to scan whole for files the host runs later (${truncated}): protected files there are still refused by the file tools and asked about, but not bound read-only or reverted after a call. Work in a smaller directory (--workspace) to have them all.`,
    );
  }
  return warnings;
}

/**
 * The warning for a journal whose damaged tail a load set aside.
 *
 * @param id the session id
 * @param torn what was moved, and where
 */
export function tornTailWarning(id: string, torn: TornTail): string {
  return `the end of session ${id}'s journal was damaged (${torn.bytes} bytes after its last whole record, a crash while writing?): they were moved to ${torn.path}, and the session goes on from its last whole record.`;
}
