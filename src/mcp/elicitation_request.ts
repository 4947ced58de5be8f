/**
 * MCP elicitations (a 2025-11-25 `elicitation/create` request, or a 2026-07-28 input-required
 * result's embedded request — the SDK hands both to the same handler) turned into the
 * clarifier's {@linkcode ElicitationRequest}, and the answer back into an `ElicitResult`.
 *
 * @module
 */
import type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationOption,
  ElicitationRequest,
  ElicitationValue,
} from "../approval/elicitation.ts";

type Json = Record<string, unknown>;

/** The result sent back to the server (MCP `ElicitResult`). */
export interface ElicitResultLike {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, ElicitationValue>;
  _meta?: Record<string, unknown>;
}

/**
 * Read an elicitation's params (`message`, and `requestedSchema` or `url`).
 *
 * @param params the request's params (already validated by the SDK)
 * @param source who asks, e.g. `MCP server "everything"`
 * @returns the request for the clarifier
 * @throws {TypeError} when a form field has a type MCP does not allow (not a primitive)
 *
 * @example A form with an enum and a default
 * ```ts
 * import { toElicitationRequest } from "./elicitation_request.ts";
 * const request = toElicitationRequest({
 *   message: "Pick",
 *   requestedSchema: { type: "object", required: ["color"], properties: {
 *     color: { type: "string", enum: ["red", "blue"], default: "red" },
 *   } },
 * }, 'MCP server "demo"');
 * if (request.mode !== "form" || request.fields[0].type !== "enum") throw new Error("enum");
 * ```
 */
export function toElicitationRequest(params: Json, source: string): ElicitationRequest {
  const message = typeof params.message === "string" ? params.message : "";
  if (params.mode === "url") {
    return { mode: "url", source, message, url: String(params.url ?? "") };
  }
  const schema = (params.requestedSchema ?? {}) as Json;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set(Array.isArray(schema.required) ? schema.required as string[] : []);
  const fields = Object.entries(properties).map(([name, field]) =>
    toField(name, field, required.has(name))
  );
  return { mode: "form", source, message, fields };
}

function toField(name: string, s: Json, required: boolean): ElicitationField {
  const base = {
    name,
    required,
    ...(typeof s.title === "string" ? { title: s.title } : {}),
    ...(typeof s.description === "string" ? { description: s.description } : {}),
  };
  const num = (key: string) => typeof s[key] === "number" ? { [key]: s[key] as number } : {};
  if (s.type === "array") {
    const items = (s.items ?? {}) as Json;
    return {
      ...base,
      type: "multi_enum",
      options: options(items),
      ...(Array.isArray(s.default) ? { default: s.default.map(String) } : {}),
      ...num("minItems"),
      ...num("maxItems"),
    };
  }
  if (s.type === "string" && (Array.isArray(s.enum) || Array.isArray(s.oneOf))) {
    return {
      ...base,
      type: "enum",
      options: options(s),
      ...(typeof s.default === "string" ? { default: s.default } : {}),
    };
  }
  switch (s.type) {
    case "string":
      return {
        ...base,
        type: "string",
        ...(typeof s.default === "string" ? { default: s.default } : {}),
        ...num("minLength"),
        ...num("maxLength"),
        ...(typeof s.format === "string" ? { format: s.format } : {}),
      };
    case "number":
    case "integer":
      return {
        ...base,
        type: s.type,
        ...(typeof s.default === "number" ? { default: s.default } : {}),
        ...num("minimum"),
        ...num("maximum"),
      };
    case "boolean":
      return {
        ...base,
        type: "boolean",
        ...(typeof s.default === "boolean" ? { default: s.default } : {}),
      };
    default:
      throw new TypeError(`field "${name}" has the type ${JSON.stringify(s.type)}`);
  }
}

/** Choices from `enum` (+ legacy `enumNames`), `oneOf`/`anyOf` of `{ const, title }`. */
function options(s: Json): ElicitationOption[] {
  const titled = (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null) as
    | Json[]
    | null;
  if (titled) {
    return titled.map((o) => ({
      value: String(o.const),
      label: typeof o.title === "string" ? o.title : String(o.const),
    }));
  }
  const values = Array.isArray(s.enum) ? s.enum.map(String) : [];
  const names = Array.isArray(s.enumNames) ? s.enumNames.map(String) : [];
  return values.map((value, i) => ({ value, label: names[i] ?? value }));
}

/**
 * The `ElicitResult` for an answer: accepted content, or a decline/cancel whose reason goes in
 * `_meta` (`odek/reason`) and to the caller.
 *
 * @param answer the clarifier's answer
 * @returns the result for the server
 */
export function toElicitResult(answer: ElicitationAnswer): ElicitResultLike {
  if (answer.action === "accept") return { action: "accept", content: { ...answer.content } };
  return { action: answer.action, _meta: { "odek/reason": answer.reason } };
}
