/**
 * odek's own notes on a tool result (private to `broker/`): kept apart from the output, so the
 * loop shows them after the untrusted-content boundary where a program cannot forge them.
 *
 * @module
 */
import type { ToolResult } from "./tool_broker.ts";

/**
 * `result` with `notes` added after any it has.
 *
 * @param result the tool result
 * @param notes sentences from odek (without a `[odek]` prefix)
 * @returns a new result, or `result` itself when there is nothing to add
 */
export function withNotes(result: ToolResult, notes: readonly string[]): ToolResult {
  if (notes.length === 0) return result;
  return { ...result, notes: [...(result.notes ?? []), ...notes] };
}
