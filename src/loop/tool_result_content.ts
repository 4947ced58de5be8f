/**
 * How a tool result is written into the transcript for the model.
 *
 * @module
 */
import type { ToolResult } from "../broker/tool_broker.ts";

/**
 * The `content` of a `role: "tool"` message: the output text for a success; for a failure a
 * first line `error (<kind>): ` followed by the message, so the model reads the kind and the
 * output as plain text (odek-go §3.1 also starts failures with `error:`).
 *
 * @example
 * ```ts
 * import { toolResultContent } from "./tool_result_content.ts";
 * const text = toolResultContent({ ok: false, error: { kind: "timeout", message: "killed after 5 s" } });
 * if (text !== "error (timeout): killed after 5 s") throw new Error(text);
 * ```
 */
export function toolResultContent(result: ToolResult): string {
  if (result.ok) return result.output === "" ? "(no output)" : result.output;
  return `error (${result.error.kind}): ${result.error.message}`;
}
