/**
 * The `json_query` tool: a JMESPath expression (https://jmespath.org, the query language of the
 * AWS CLI) applied to a JSON document given inline, with the npm `jmespath` package, the
 * reference JavaScript implementation. JMESPath has no code evaluation (unlike JSONPath filter
 * scripts). It runs in the compute child.
 *
 * @module
 */
// @ts-types="@types/jmespath"
import jmespath from "jmespath";
import { z } from "zod";
import { boundedText, capOutput } from "./_compute_limits.ts";
import { ToolFailure } from "./_protocol.ts";

/** Arguments of `json_query`. */
export const JsonQueryArgsSchema = z.strictObject({
  json: boundedText("json"),
  query: z.string().min(1).max(10_000),
});

/**
 * Parse `json` and return the result of the JMESPath `query` on it as pretty-printed JSON
 * (`null` when nothing matches).
 *
 * @param _workspace unused (the compute child reaches no files)
 * @param args `{ json, query }` (validated here)
 * @returns the result as JSON text
 * @throws {ToolFailure} `invalid_arguments` for invalid JSON or an invalid query; `failed` for a
 *   result over 1 MiB
 *
 * @example
 * ```ts
 * import { jsonQuery } from "./_json_query.ts";
 * const out = await jsonQuery("/", { json: '{"a":[{"b":1},{"b":2}]}', query: "a[*].b" });
 * if (out !== "[\n  1,\n  2\n]") throw new Error(out);
 * ```
 */
export function jsonQuery(
  _workspace: string,
  args: Record<string, unknown>,
): string {
  const { json, query } = JsonQueryArgsSchema.parse(args);
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
