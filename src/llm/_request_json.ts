/**
 * The JSON text of a chat-completions request body (private to `llm/`), with the tool list
 * serialised once per list instead of once per request: a run sends the same `tools` array (the
 * run's `ToolSet.specs`) with every request, and its schemas are most of a short request's bytes
 * (docs/performance.md, "A step").
 *
 * @module
 */

/** The JSON of each tool list seen, by the list's identity. */
const TOOLS_JSON = new WeakMap<readonly unknown[], string>();

/**
 * `JSON.stringify({ tools, ...body })`, with `tools` left out when empty. The list is read once:
 * a list changed in place after its first request would be sent as it was then, so callers pass
 * lists they never change (a `ToolSet`'s specs are built once).
 *
 * @param body the request's other fields (a `tools` field in it is ignored)
 * @param tools the tool specs, sent as `tools` when not empty
 * @returns the body's JSON text
 *
 * @example
 * ```ts
 * import { requestJson } from "./_request_json.ts";
 * const tools = [{ type: "function", function: { name: "shell" } }];
 * const text = requestJson({ model: "m", stream: true }, tools);
 * if (JSON.parse(text).tools[0].function.name !== "shell") throw new Error(text);
 * ```
 */
export function requestJson(body: Record<string, unknown>, tools: readonly unknown[]): string {
  const { tools: _ignored, ...rest } = body;
  const text = JSON.stringify(rest);
  if (tools.length === 0) return text;
  let listed = TOOLS_JSON.get(tools);
  if (listed === undefined) TOOLS_JSON.set(tools, listed = JSON.stringify(tools));
  return text === "{}" ? `{"tools":${listed}}` : `{"tools":${listed},${text.slice(1)}`;
}
