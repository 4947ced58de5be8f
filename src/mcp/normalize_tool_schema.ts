/**
 * An MCP tool's `inputSchema` (JSON Schema, often 2020-12) turned into the parameters the
 * chat-completions API accepts: an object schema without references or keywords providers
 * reject. Tools whose schema cannot be turned into one are left out with a reason.
 *
 * @module
 */

/** Largest schema taken, in JSON characters (odek-go §5.6: 256 KiB). */
export const MAX_SCHEMA_CHARS = 256 * 1024;
/** Deepest nesting taken. */
const MAX_DEPTH = 48;
/** Most schema nodes produced (references are inlined: a fan-out bound). */
const MAX_NODES = 20_000;
/** Longest description kept inside a schema, in characters. */
const MAX_DESCRIPTION = 1024;

/** Keywords dropped: not understood (or refused) by chat-completions providers, or only metadata. */
const DROPPED = new Set([
  "$schema",
  "$id",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$vocabulary",
  "$comment",
  "$defs",
  "definitions",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "if",
  "then",
  "else",
  "not",
  "propertyNames",
  "patternProperties",
  "contains",
  "minContains",
  "maxContains",
  "nullable",
]);

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

type Json = Record<string, unknown>;

/**
 * Normalise a tool's input schema for the chat-completions API:
 *
 * - local references (`#/$defs/…`, `#/definitions/…`, `#`) are inlined (a recursive one becomes
 *   an unconstrained schema with a note); other references are never fetched and become
 *   unconstrained too;
 * - `oneOf` becomes `anyOf`; `allOf` of object schemas is merged; `const` becomes a one-value
 *   `enum`; `prefixItems` (and draft-4 tuple `items`) become `items` with `anyOf`;
 * - a missing `type` is inferred (`properties` → object, `items` → array, `enum` → its values);
 * - 2020-12 keywords providers reject (`$defs`, `unevaluatedProperties`, `dependentSchemas`,
 *   `if`/`then`/`else`, …) and extensions (`x-…`, such as `x-mcp-header`) are dropped;
 *   descriptions are capped at 1024 characters;
 * - the top level is an object schema with `properties` (a top-level `anyOf` of objects is
 *   merged into one object whose properties are all optional).
 *
 * @param input the server's `inputSchema`
 * @returns the parameters, or why the tool must be left out
 *
 * @example References inlined, 2020-12 keywords dropped
 * ```ts
 * import { normalizeToolSchema } from "./normalize_tool_schema.ts";
 * const out = normalizeToolSchema({
 *   $schema: "https://json-schema.org/draft/2020-12/schema",
 *   properties: { p: { $ref: "#/$defs/point" } },
 *   $defs: { point: { type: "object", properties: { x: { const: 1 } } } },
 * });
 * if (!("schema" in out)) throw new Error(out.error);
 * const text = JSON.stringify(out.schema);
 * if (text !== '{"properties":{"p":{"type":"object","properties":{"x":{"enum":[1],"type":"integer"}}}},"type":"object"}') throw new Error(text);
 * ```
 */
export function normalizeToolSchema(input: unknown): { schema: Json } | { error: string } {
  if (!isObject(input)) return { error: "its input schema is not a JSON object" };
  let size: number;
  try {
    size = JSON.stringify(input).length;
  } catch {
    return { error: "its input schema cannot be serialised" };
  }
  if (size > MAX_SCHEMA_CHARS) {
    return { error: `its input schema has ${size} characters, more than ${MAX_SCHEMA_CHARS}` };
  }
  const state = { root: input, nodes: 0, expanding: [] as string[] };
  let out: Json;
  try {
    out = walk(input, state, 0);
  } catch (error) {
    return { error: `its input schema ${(error as Error).message}` };
  }
  out = toTopObject(out);
  if (out.type !== "object") {
    return { error: `its input schema describes ${JSON.stringify(out.type)}, not an object` };
  }
  if (!isObject(out.properties)) out.properties = {};
  return { schema: out };
}

interface State {
  root: Json;
  nodes: number;
  expanding: string[];
}

function walk(node: unknown, state: State, depth: number): Json {
  if (node === true || node === undefined) return {};
  if (node === false) return { description: "(no value is valid here)" };
  if (!isObject(node)) throw new Error(`has a subschema that is not an object`);
  if (depth > MAX_DEPTH) throw new Error(`is nested deeper than ${MAX_DEPTH} levels`);
  if (++state.nodes > MAX_NODES) throw new Error(`expands to more than ${MAX_NODES} subschemas`);
  if (typeof node.$ref === "string") return reference(node, state, depth);
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key.startsWith("x-")) continue;
    switch (key) {
      case "properties": {
        if (!isObject(value)) throw new Error("has properties that are not an object");
        const props: Json = {};
        for (const [name, sub] of Object.entries(value)) props[name] = walk(sub, state, depth + 1);
        out.properties = props;
        break;
      }
      case "items":
        out.items = Array.isArray(value)
          ? { anyOf: value.map((s) => walk(s, state, depth + 1)) }
          : walk(value, state, depth + 1);
        break;
      case "prefixItems":
        if (!Array.isArray(value)) throw new Error("has prefixItems that are not a list");
        if (node.items === undefined) {
          out.items = { anyOf: value.map((s) => walk(s, state, depth + 1)) };
        }
        break;
      case "additionalProperties":
        out.additionalProperties = typeof value === "boolean"
          ? value
          : walk(value, state, depth + 1);
        break;
      case "anyOf":
      case "oneOf": {
        if (!Array.isArray(value)) throw new Error(`has ${key} that is not a list`);
        out.anyOf = value.map((s) => walk(s, state, depth + 1));
        break;
      }
      case "allOf": {
        if (!Array.isArray(value)) throw new Error("has allOf that is not a list");
        Object.assign(out, mergeAll(value.map((s) => walk(s, state, depth + 1))));
        break;
      }
      case "const":
        out.enum = [value];
        break;
      case "type":
        checkType(value);
        out.type = value;
        break;
      case "required":
        if (Array.isArray(value)) out.required = value.filter((v) => typeof v === "string");
        break;
      case "description":
      case "title":
        if (typeof value === "string") out[key] = cap(value);
        break;
      default:
        out[key] = value;
    }
  }
  if (out.type === undefined) {
    const inferred = inferType(out);
    if (inferred !== undefined) out.type = inferred;
  }
  return out;
}

function reference(node: Json, state: State, depth: number): Json {
  const ref = node.$ref as string;
  const note = (why: string) => {
    const base = typeof node.description === "string" ? node.description : "";
    return { description: cap(base ? `${base} (${why})` : `(${why})`) };
  };
  if (!ref.startsWith("#")) return note(`a schema at ${ref}, not fetched`);
  if (state.expanding.includes(ref)) return note("recursive: the same shape as its parent");
  const target = resolvePointer(state.root, ref);
  if (target === undefined) throw new Error(`refers to ${ref}, which it does not define`);
  state.expanding.push(ref);
  try {
    const { $ref: _ref, ...siblings } = node;
    const inlined = walk(target, state, depth + 1);
    const extra = walk(siblings, state, depth + 1);
    return { ...inlined, ...extra };
  } finally {
    state.expanding.pop();
  }
}

function resolvePointer(root: Json, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

/** allOf: object parts merged (properties joined, required united); other keywords first wins. */
function mergeAll(parts: Json[]): Json {
  const out: Json = {};
  for (const part of parts) {
    for (const [key, value] of Object.entries(part)) {
      if (key === "properties" && isObject(value)) {
        out.properties = { ...(out.properties as Json ?? {}), ...value };
      } else if (key === "required" && Array.isArray(value)) {
        out.required = [...new Set([...(out.required as string[] ?? []), ...value])];
      } else if (!(key in out)) out[key] = value;
    }
  }
  return out;
}

/** A top-level `anyOf` of object schemas becomes one object; the properties all optional. */
function toTopObject(schema: Json): Json {
  if (schema.type === undefined && Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf as Json[];
    if (branches.length > 0 && branches.every((b) => b.type === "object")) {
      const { anyOf: _branches, ...rest } = schema;
      const merged = mergeAll(branches);
      delete merged.required;
      return { ...rest, ...merged, type: "object" };
    }
  }
  if (schema.type === undefined) return { ...schema, type: "object" };
  return schema;
}

function inferType(schema: Json): string | undefined {
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) {
    return "object";
  }
  if (schema.items !== undefined) return "array";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    const kinds = new Set(
      schema.enum.map((v) =>
        v === null
          ? "null"
          : typeof v === "number"
          ? (Number.isInteger(v) ? "integer" : "number")
          : typeof v
      ),
    );
    if (kinds.size === 1) {
      const kind = [...kinds][0];
      return TYPES.has(kind) ? kind : undefined;
    }
  }
  return undefined;
}

function checkType(value: unknown): void {
  const ok = typeof value === "string"
    ? TYPES.has(value)
    : Array.isArray(value) && value.length > 0 &&
      value.every((v) => typeof v === "string" && TYPES.has(v));
  if (!ok) throw new Error(`has an unknown type ${JSON.stringify(value)}`);
}

function cap(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION - 1)}…`;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
