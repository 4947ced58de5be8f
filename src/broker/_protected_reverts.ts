/**
 * Reporting what the workspace guard undid (private to `broker/`): to the operator through
 * `onProtectedRevert` listeners (the run's `protected_reverted` event), and to the model in the
 * call's result.
 *
 * @module
 */
import { withNotes } from "./_result_notes.ts";
import { relative } from "node:path";
import type { RevertedPath } from "./workspace_guard.ts";
import type { ProtectedRevert, ToolInvocation, ToolResult } from "./tool_broker.ts";

/** The listeners, and the note for the model. */
export class ProtectedReverts {
  readonly #listeners = new Set<(revert: ProtectedRevert) => void>();

  /** @returns the function that stops the reports */
  subscribe(listener: (revert: ProtectedRevert) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Report `paths` for `invocation` (nothing when empty). */
  report(invocation: Pick<ToolInvocation, "id" | "name">, paths: readonly RevertedPath[]): void {
    if (paths.length === 0) return;
    const revert = { callId: invocation.id, name: invocation.name, paths: [...paths] };
    for (const listener of this.#listeners) {
      try {
        listener(revert);
      } catch {
        // A faulty listener must not break the call.
      }
    }
  }

  /**
   * The result with a note saying what was undone and how such a write is made.
   *
   * @param result the call's result
   * @param paths what the guard did
   * @param workspace paths are shown relative to it
   */
  annotate(result: ToolResult, paths: readonly RevertedPath[], workspace: string): ToolResult {
    if (paths.length === 0) return result;
    const shown = paths.map((p) =>
      `${p.action === "kept" ? `could not undo (${p.why})` : p.action} ${
        relative(workspace, p.path) || p.path
      }`
    );
    const note =
      `Files the host runs later (hooks, git configuration, .envrc, editor settings) may not be changed by contained work, so odek undid this call's changes to them: ${
        shown.join("; ")
      }. To change one, name it in its own command or write_file call: that asks the operator.`;
    return withNotes(result, [note]);
  }
}
