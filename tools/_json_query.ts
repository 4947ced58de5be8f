/**
 * The `json_query` tool: a JMESPath expression (https://jmespath.org, the query language of the
 * AWS CLI) applied to a JSON document given inline, with the npm `jmespath` package, the
 * reference JavaScript implementation. JMESPath has no code evaluation (unlike JSONPath filter
 * scripts). It runs in the compute child.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
// @ts-types="@types/jmespath"
import jmespath from "jmespath";
import { capOutput } from "./_compute_limits.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/**
 * Parse `json` and return the result of the JMESPath `query` on it as pretty-printed JSON
 * (`null` when nothing matches).
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param _context unused (the compute child reaches no files)
 * @returns the result as JSON text
 * @throws {ToolFailure} `invalid_arguments` for invalid JSON or an invalid query; `failed` for a
 *   result over 1 MiB
 *
 * @example
 * ```ts
 * import { jsonQuery } from "./_json_query.ts";
 * const out = await jsonQuery({ json: '{"a":[{"b":1},{"b":2}]}', query: "a[*].b" });
 * if (out !== "[\n  1,\n  2\n]") throw new Error(out);
 * ```
 */
export function jsonQuery(
  args: ToolArgs<"json_query">,
  _context?: ToolContext,
): string {
  const { json, query } = args;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `json is not valid JSON: ${(error as Error).message}`,
    );
  }
  let result: unknown;
  try {
    result = jmespath.search(data, query);
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `query is not a valid JMESPath expression (https://jmespath.org): ${
        (error as Error).message
      }`,
    );
  }
  let text: string | undefined;
  try {
    // A query can reach a value JSON has no form for (`constructor` names an inherited
    // function): that prints as null.
    text = JSON.stringify(result ?? null, null, 2);
  } catch (error) {
    throw new ToolFailure(
      "failed",
      `The result cannot be printed as JSON (${
        (error as Error).message
      }): it nests too deeply. Query a part of it`,
    );
  }
  return capOutput("json_query", text ?? "null");
}
