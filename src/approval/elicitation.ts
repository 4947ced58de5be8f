/**
 * Elicitation: a tool (an MCP server) asks the operator for structured input — a form of typed
 * fields, or a URL to visit — through the {@linkcode Clarifier} (terminal now, the web UI later).
 * The shapes follow MCP's `elicitation/create` (2025-11-25) and the input-required results of
 * 2026-07-28, reduced to what a person is shown: fields with their types, defaults and choices.
 *
 * @module
 */

/** One choice of an enum field. */
export interface ElicitationOption {
  /** What is sent back. */
  readonly value: string;
  /** What the operator is shown. */
  readonly label: string;
}

/** What every field has. */
interface FieldBase {
  /** The key in the answer's content. */
  readonly name: string;
  /** A short label. @default the name */
  readonly title?: string;
  /** What the field is for. */
  readonly description?: string;
  /** Whether an answer must have it. */
  readonly required: boolean;
}

/** One field of a form. */
export type ElicitationField =
  | FieldBase & {
    readonly type: "string";
    readonly default?: string;
    readonly minLength?: number;
    readonly maxLength?: number;
    /** `email`, `uri`, `date` or `date-time`. */
    readonly format?: string;
  }
  | FieldBase & {
    readonly type: "number" | "integer";
    readonly default?: number;
    readonly minimum?: number;
    readonly maximum?: number;
  }
  | FieldBase & { readonly type: "boolean"; readonly default?: boolean }
  | FieldBase & {
    readonly type: "enum";
    readonly options: readonly ElicitationOption[];
    readonly default?: string;
  }
  | FieldBase & {
    readonly type: "multi_enum";
    readonly options: readonly ElicitationOption[];
    readonly default?: readonly string[];
    readonly minItems?: number;
    readonly maxItems?: number;
  };

/** A value of an accepted form. */
export type ElicitationValue = string | number | boolean | string[];

/** What is asked. `source` names who asks, e.g. `MCP server "github"`. */
export type ElicitationRequest =
  | {
    readonly mode: "form";
    readonly source: string;
    readonly message: string;
    readonly fields: readonly ElicitationField[];
  }
  | {
    readonly mode: "url";
    readonly source: string;
    readonly message: string;
    /** The URL to visit: shown, never opened by odek. */
    readonly url: string;
  };

/** The operator's answer. `reason` says why there is no content, for the model. */
export type ElicitationAnswer =
  | { readonly action: "accept"; readonly content: Readonly<Record<string, ElicitationValue>> }
  | { readonly action: "decline"; readonly reason: string }
  | { readonly action: "cancel"; readonly reason: string };

/**
 * Parse what the operator typed for one field: `undefined` with the problem when it does not
 * fit. Enum fields take the choice's number or its value; multi-enum fields a comma-separated
 * list of those; booleans `y`/`yes`/`true`/`1` or `n`/`no`/`false`/`0`.
 *
 * @param field the field
 * @param text what was typed (not empty)
 * @returns the value, or the problem
 *
 * @example
 * ```ts
 * import { parseFieldAnswer } from "./elicitation.ts";
 * const field = { name: "n", type: "integer" as const, required: true, minimum: 1 };
 * const ok = parseFieldAnswer(field, "3");
 * if (!("value" in ok) || ok.value !== 3) throw new Error("3");
 * if ("value" in parseFieldAnswer(field, "0")) throw new Error("below the minimum");
 * ```
 */
export function parseFieldAnswer(
  field: ElicitationField,
  text: string,
): { value: ElicitationValue } | { problem: string } {
  const t = text.trim();
  switch (field.type) {
    case "string": {
      if (field.minLength !== undefined && t.length < field.minLength) {
        return { problem: `at least ${field.minLength} characters` };
      }
      if (field.maxLength !== undefined && t.length > field.maxLength) {
        return { problem: `at most ${field.maxLength} characters` };
      }
      if (field.format === "email" && !/^[^@\s]+@[^@\s]+$/.test(t)) {
        return { problem: "an email address" };
      }
      if (field.format === "uri" && !URL.canParse(t)) return { problem: "a URI" };
      if (field.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(t)) {
        return { problem: "a date (YYYY-MM-DD)" };
      }
      return { value: t };
    }
    case "number":
    case "integer": {
      const n = Number(t);
      if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) {
        return { problem: field.type === "integer" ? "a whole number" : "a number" };
      }
      if (field.minimum !== undefined && n < field.minimum) {
        return { problem: `at least ${field.minimum}` };
      }
      if (field.maximum !== undefined && n > field.maximum) {
        return { problem: `at most ${field.maximum}` };
      }
      return { value: n };
    }
    case "boolean": {
      if (/^(y|yes|true|1)$/i.test(t)) return { value: true };
      if (/^(n|no|false|0)$/i.test(t)) return { value: false };
      return { problem: "yes or no" };
    }
    case "enum": {
      const choice = pick(field.options, t);
      return choice === undefined ? { problem: "one of the choices (its number or value)" } : {
        value: choice,
      };
    }
    case "multi_enum": {
      const parts = t.split(",").map((p) => p.trim()).filter((p) => p !== "");
      const values: string[] = [];
      for (const part of parts) {
        const choice = pick(field.options, part);
        if (choice === undefined) return { problem: `"${part}" is not one of the choices` };
        if (!values.includes(choice)) values.push(choice);
      }
      if (field.minItems !== undefined && values.length < field.minItems) {
        return { problem: `at least ${field.minItems} choices` };
      }
      if (field.maxItems !== undefined && values.length > field.maxItems) {
        return { problem: `at most ${field.maxItems} choices` };
      }
      return { value: values };
    }
    default: {
      const unreachable: never = field;
      throw new TypeError(`Unknown field: ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The default of a field, as an answer value, when it has one. */
export function fieldDefault(field: ElicitationField): ElicitationValue | undefined {
  const value = field.default;
  return Array.isArray(value) ? [...value] : value as ElicitationValue | undefined;
}

function pick(options: readonly ElicitationOption[], text: string): string | undefined {
  const index = /^\d+$/.test(text) ? Number(text) - 1 : -1;
  if (index >= 0 && index < options.length) return options[index].value;
  return options.find((o) => o.value === text || o.label.toLowerCase() === text.toLowerCase())
    ?.value;
}
