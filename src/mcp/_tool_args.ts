/**
 * The argument schema of an MCP tool as the tool set takes it (private to `mcp/`): its
 * normalised JSON Schema for the model, and a light check of a call's arguments (an object,
 * required properties present, top-level types right) so the model gets a clear error before the
 * call leaves odek. The server validates in full.
 *
 * @module
 */
import type { ArgsSchema } from "../../tools/_catalogue/mod.ts";

type Json = Record<string, unknown>;

/**
 * @param schema the normalised input schema (an object schema)
 * @returns a Standard-Schema-shaped validator whose JSON Schema is `schema`
 */
export function mcpToolArgs(schema: Json): ArgsSchema {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = Array.isArray(schema.required) ? schema.required as string[] : [];
  return {
    "~standard": {
      version: 1,
      vendor: "odek-mcp",
      validate(value: unknown) {
        if (typeof value !== "object" || value === null || Array.isArray(value)) {
          return { issues: [{ message: "the arguments must be one JSON object" }] };
        }
        const args = value as Record<string, unknown>;
        const issues: { message: string; path: string[] }[] = [];
        for (const name of required) {
          if (!(name in args)) issues.push({ message: "required", path: [name] });
        }
        for (const [name, item] of Object.entries(args)) {
          const sub = properties[name];
          // An optional property sent as null means "not given" to most servers: let it through.
          if (sub === undefined || (item === null && !required.includes(name))) continue;
          const problem = typeProblem(sub, item);
          if (problem) issues.push({ message: problem, path: [name] });
        }
        return issues.length > 0 ? { issues } : { value: args };
      },
      jsonSchema: { input: () => structuredClone(schema) },
    },
  };
}

function typeProblem(schema: Json, value: unknown): string | undefined {
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => equal(v, value))) {
    return `expected one of ${JSON.stringify(schema.enum)}`;
  }
  const types = typeof schema.type === "string"
    ? [schema.type]
    : Array.isArray(schema.type)
    ? schema.type as string[]
    : [];
  if (types.length === 0 || types.some((t) => fits(t, value))) return undefined;
  return `expected ${types.join(" or ")}, got ${describe(value)}`;
}

function fits(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
