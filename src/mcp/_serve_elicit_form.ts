/**
 * An odek form elicitation (`ElicitationRequest`, from a tool of a session host of
 * `odek mcp serve`) as the MCP `requestedSchema` put to the client (private to `mcp/`): the
 * reverse of `toElicitationRequest`. Enum options whose labels are their values become a plain
 * `enum`, titled ones a `oneOf` of `const`/`title` (SEP-1330); defaults are kept (SEP-1034).
 *
 * @module
 */
import type { ElicitationField } from "../approval/elicitation.ts";
import type { ElicitForm } from "./_serve_operator.ts";

/** The form of `message` and `fields`. */
export function elicitForm(message: string, fields: readonly ElicitationField[]): ElicitForm {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const field of fields) {
    const base: Record<string, unknown> = {
      ...(field.title !== undefined ? { title: field.title } : {}),
      ...(field.description !== undefined ? { description: field.description } : {}),
    };
    switch (field.type) {
      case "string":
        properties[field.name] = { type: "string", ...base, ...pick(field, STRING) };
        break;
      case "number":
      case "integer":
        properties[field.name] = { type: field.type, ...base, ...pick(field, NUMBER) };
        break;
      case "boolean":
        properties[field.name] = { type: "boolean", ...base, ...pick(field, ["default"]) };
        break;
      case "enum":
        properties[field.name] = {
          type: "string",
          ...base,
          ...choices(field.options),
          ...pick(field, ["default"]),
        };
        break;
      case "multi_enum":
        properties[field.name] = {
          type: "array",
          ...base,
          items: plain(field.options)
            ? { type: "string", enum: field.options.map((o) => o.value) }
            : { anyOf: field.options.map((o) => ({ const: o.value, title: o.label })) },
          ...pick(field, ["default", "minItems", "maxItems"]),
        };
        break;
      default: {
        const unreachable: never = field;
        throw new TypeError(`Unknown elicitation field: ${JSON.stringify(unreachable)}`);
      }
    }
  }
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return {
    message,
    requestedSchema: { type: "object", properties, ...(required.length ? { required } : {}) },
  };
}

const STRING = ["default", "minLength", "maxLength", "format"];
const NUMBER = ["default", "minimum", "maximum"];

function pick(field: object, keys: readonly string[]): Record<string, unknown> {
  const source = field as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined).map((k) => [k, source[k]]));
}

function plain(options: readonly { value: string; label: string }[]): boolean {
  return options.every((o) => o.label === o.value);
}

function choices(options: readonly { value: string; label: string }[]): Record<string, unknown> {
  return plain(options)
    ? { enum: options.map((o) => o.value) }
    : { oneOf: options.map((o) => ({ const: o.value, title: o.label })) };
}
