/**
 * Elicitation: a tool (an MCP server) asks the operator for structured input — a form of typed
 * fields, or a URL to visit — through the {@linkcode Clarifier} (terminal now, the web UI later).
 * The shapes follow MCP's `elicitation/create` (2025-11-25) and the input-required results of
 * 2026-07-28, reduced to what a person is shown: fields with their types, defaults and choices.
 *
 * @module
 */

/**
 * One choice of an enum field.
 *
 * @example A choice
 * ```ts
 * import type { ElicitationOption } from "./elicitation.ts";
 * const option: ElicitationOption = { value: "eu-west-1", label: "Ireland" };
 * if (option.label !== "Ireland") throw new Error("label");
 * ```
 */
export interface ElicitationOption {
  /** What is sent back. */
  readonly value: string;
  /** What the operator is shown. */
  readonly label: string;
}

/**
 * What every field of an {@linkcode ElicitationField} has.
 *
 * @example A required field
 * ```ts
 * import type { ElicitationFieldBase } from "./elicitation.ts";
 * const base: ElicitationFieldBase = { name: "region", title: "Region", required: true };
 * if (!base.required) throw new Error("required");
 * ```
 */
export interface ElicitationFieldBase {
  /** The key in the answer's content. */
  readonly name: string;
  /** A short label. @default the name */
  readonly title?: string;
  /** What the field is for. */
  readonly description?: string;
  /** Whether an answer must have it. */
  readonly required: boolean;
}

/**
 * One field of a form.
 *
 * @example A text field and a choice
 * ```ts
 * import type { ElicitationField } from "./elicitation.ts";
 * const fields: ElicitationField[] = [
 *   { name: "repo", required: true, type: "string", minLength: 1 },
 *   { name: "visibility", required: false, type: "enum", options: [{ value: "public", label: "Public" }] },
 * ];
 * if (fields.length !== 2) throw new Error("fields");
 * ```
 */
export type ElicitationField =
  | ElicitationFieldBase & {
    readonly type: "string";
    readonly default?: string;
    readonly minLength?: number;
    readonly maxLength?: number;
    /** `email`, `uri`, `date` or `date-time`. */
    readonly format?: string;
  }
  | ElicitationFieldBase & {
    readonly type: "number" | "integer";
    readonly default?: number;
    readonly minimum?: number;
    readonly maximum?: number;
  }
  | ElicitationFieldBase & { readonly type: "boolean"; readonly default?: boolean }
  | ElicitationFieldBase & {
    readonly type: "enum";
    readonly options: readonly ElicitationOption[];
    readonly default?: string;
  }
  | ElicitationFieldBase & {
    readonly type: "multi_enum";
    readonly options: readonly ElicitationOption[];
    readonly default?: readonly string[];
    readonly minItems?: number;
    readonly maxItems?: number;
  };

/**
 * A value of an accepted form.
 *
 * @example Values of a form
 * ```ts
 * import type { ElicitationValue } from "./elicitation.ts";
 * const values: ElicitationValue[] = ["octo/repo", 3, true, ["a", "b"]];
 * if (values.length !== 4) throw new Error("values");
 * ```
 */
export type ElicitationValue = string | number | boolean | string[];

/**
 * What is asked. `source` names who asks, e.g. `MCP server "github"`.
 *
 * @example Ask for a repository name
 * ```ts
 * import type { ElicitationRequest } from "./elicitation.ts";
 * const request: ElicitationRequest = {
 *   mode: "form",
 *   source: 'MCP server "github"',
 *   message: "Which repository?",
 *   fields: [{ name: "repo", required: true, type: "string" }],
 * };
 * if (request.mode !== "form" || request.fields.length !== 1) throw new Error("request");
 * ```
 */
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

/**
 * The operator's answer. `reason` says why there is no content, for the model.
 *
 * @example Accept or decline
 * ```ts
 * import type { ElicitationAnswer } from "./elicitation.ts";
 * const answers: ElicitationAnswer[] = [
 *   { action: "accept", content: { repo: "octo/repo" } },
 *   { action: "decline", reason: "no operator is attached" },
 * ];
 * if (answers[0].action !== "accept") throw new Error("answer");
 * ```
 */
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
