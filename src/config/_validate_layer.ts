/**
 * Validation of one configuration layer against a zod schema, with errors that name where the
 * value came from, the key path, the value and the expected shape (private to `config/`).
 *
 * @module
 */
import { parse, type ParseError, printParseErrorCode, stripComments } from "jsonc-parser";
import type { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { DEFAULT_CONFIG } from "./odek_config.ts";

/**
 * Validate `data` with `schema`.
 *
 * @param data the layer as read
 * @param schema the layer's schema
 * @param source names where the value at a key path came from (`/h/.odek/config.jsonc`,
 *   `environment variable ODEK_MODEL`, `flag --model`)
 * @param code the error's code (`USAGE` for flags: exit code 2)
 * @returns the validated layer
 * @throws {OdekError} `code` with the first issue described
 */
export function validateLayer<T>(
  data: unknown,
  schema: z.ZodType<T>,
  source: (path: string) => string,
  code: "CONFIG_INVALID" | "USAGE" = "CONFIG_INVALID",
): T {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue.path.map(String).join(".");
  throw new OdekError(code, describeIssue(issue, data, source(path)));
}

/**
 * Parse JSONC text (comments and trailing commas allowed; an empty or all-comment text is an
 * empty object).
 *
 * @param text the file's text
 * @param file the file's path, for the error
 * @returns the parsed value (`{}` for an empty text)
 * @throws {OdekError} `CONFIG_INVALID` naming the file, the line and the column
 */
export function parseJsonc(text: string, file: string): unknown {
  if (stripComments(text).trim() === "") return {};
  const errors: ParseError[] = [];
  let data: unknown;
  try {
    data = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  } catch (error) {
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot parse ${file}: it is nested too deeply (${(error as Error).message}). Fix the file.`,
      { cause: error },
    );
  }
  if (errors.length > 0) {
    const first = errors[0];
    const { line, column } = lineColumn(text, first.offset);
    // "CommaExpected" → "comma expected"
    const what = printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    throw new OdekError(
      "CONFIG_INVALID",
      `Cannot parse ${file} at line ${line}, column ${column}: ${what}. Fix the JSONC syntax there.`,
    );
  }
  return data === undefined ? {} : data;
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown, where: string): string {
  const path = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => (path ? `${path}.${k}` : k)).join(", ");
    const known = Object.keys(getPath(DEFAULT_CONFIG, issue.path.map(String)) as object ?? {});
    const guess = closest(issue.keys[0], known);
    const hint = guess ? ` Did you mean "${path ? `${path}.${guess}` : guess}"?` : "";
    return `Invalid configuration in ${where}: unknown key ${keys}.${hint} Remove it or check its spelling (see docs/configuration.md).`;
  }
  const value = JSON.stringify(getPath(data, issue.path.map(String)));
  return `Invalid configuration in ${where} at "${path || "(root)"}": got ${
    value ?? "nothing"
  }, expected ${expected(issue)}. See docs/configuration.md.`;
}

function expected(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.expected === "int" ? "a whole number" : `a ${issue.expected}`;
    case "too_big":
      return issue.origin === "array"
        ? `a list of at most ${issue.maximum} entries`
        : `a ${issue.origin === "string" ? "string of length" : "number"} at most ${issue.maximum}`;
    case "too_small":
      return issue.origin === "array"
        ? `a list of at least ${issue.minimum} entries`
        : `a ${
          issue.origin === "string" ? "string of length" : "number"
        } at least ${issue.minimum}`;
    case "invalid_value":
      return `one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union": {
      // Each alternative's first problem, e.g. an MCP server without "command" and without "url".
      const branches = issue.errors.map((list) => list[0]).filter((i) => i !== undefined).map((
        i,
      ) => `${i.path.length > 0 ? `"${i.path.map(String).join(".")}": ` : ""}${expected(i)}`);
      return branches.length > 0 ? `either ${branches.join(", or ")}` : "one of the allowed shapes";
    }
    case "invalid_format":
      if (issue.format === "url") return "an http:// or https:// URL";
      return issue.format === "regex" ? issue.message : `a ${issue.format}`;
    case "custom":
      return issue.message;
    default:
      return issue.message.replace(/^Invalid input: /, "").toLowerCase();
  }
}

/** The known key within edit distance 2 of `key` (case-insensitive), if any. */
function closest(key: string, known: string[]): string | undefined {
  const distance = (a: string, b: string): number => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0];
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const above = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length];
  };
  const scored = known.map((k) => [k, distance(key.toLowerCase(), k.toLowerCase())] as const);
  const best = scored.sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= 2 ? best[0] : undefined;
}

function getPath(data: unknown, keys: string[]): unknown {
  return keys.reduce<unknown>(
    (node, key) =>
      isPlainObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined,
    data,
  );
}

/** A plain object (not an array, not null). */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}
