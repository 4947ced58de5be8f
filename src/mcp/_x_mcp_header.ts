/**
 * SEP-2243 (2026-07-28, Streamable HTTP): a tool whose `x-mcp-header` declarations break the
 * rules must not be offered (private to `mcp/`). odek lists tools leniently (one broken tool
 * must not lose the others), so it applies the rule itself, as the SDK's own listing does.
 *
 * @module
 */

/** RFC 9110 token characters. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Types an `x-mcp-header` property may have. */
const PRIMITIVE = new Set(["string", "integer", "boolean"]);
/** Subschema keywords off the `properties` chain: a declaration under them is invalid. */
const OFF_CHAIN = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
];
const OBJECT_VALUED = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);

/**
 * @param inputSchema a tool's input schema
 * @returns why its `x-mcp-header` declarations are invalid, or `undefined` when they are fine
 */
export function invalidXMcpHeader(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], onChain: boolean): string | undefined => {
    if (node === null || typeof node !== "object") return undefined;
    const schema = node as Record<string, unknown>;
    if ("x-mcp-header" in schema) {
      const where = path.join(".") || "<root>";
      if (!onChain || path.length === 0) {
        return `${where}: x-mcp-header is only allowed on properties reached through "properties"`;
      }
      const name = schema["x-mcp-header"];
      if (typeof name !== "string" || name === "") {
        return `${where}: x-mcp-header must be a non-empty string`;
      }
      if (!TOKEN.test(name)) return `${where}: x-mcp-header "${name}" is not an HTTP token`;
      if (typeof schema.type !== "string" || !PRIMITIVE.has(schema.type)) {
        return `${where}: x-mcp-header is only allowed on string, integer or boolean properties`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header "${name}" is declared twice (also "${prior}")`;
      seen.set(name.toLowerCase(), name);
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === "object") {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], onChain);
        if (fault) return fault;
      }
    }
    for (const keyword of OFF_CHAIN) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : OBJECT_VALUED.has(keyword) && sub !== null && typeof sub === "object"
        ? Object.values(sub)
        : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault) return fault;
      }
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}
