/**
 * JSON lines (`odek run --json`) that are safe to print on a terminal as well as to parse.
 *
 * @module
 */

/**
 * Characters `JSON.stringify` leaves raw that a terminal would act on: C1 controls, bidi
 * controls, zero-width and line/paragraph separators, and the surrogates of Unicode tag
 * characters (U+E0000–U+E007F are `\uDB40\uDC00`–`\uDB40\uDC7F`).
 */
const UNSAFE =
  /[\u0080-\u009f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

/**
 * `JSON.stringify(value)` with every character a terminal would act on written as a `\uXXXX`
 * escape. The data is unchanged (any JSON parser reads the same value); only its printed form is
 * inert. `JSON.stringify` itself already escapes C0 controls such as ESC.
 *
 * @param value a JSON-serialisable value
 * @param indent passed to `JSON.stringify` (e.g. 2 for an export) @default none: one line
 * @returns the JSON text
 *
 * @example
 * ```ts
 * import { terminalSafeJson } from "./terminal_safe_json.ts";
 * const line = terminalSafeJson({ text: "a\u202Eb\u001b[2J\u{E0041}" });
 * if (line !== '{"text":"a\\u202eb\\u001b[2J\\udb40\\udc41"}') throw new Error(line);
 * if (JSON.parse(line).text !== "a\u202Eb\u001b[2J\u{E0041}") throw new Error("data changed");
 * ```
 */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    UNSAFE,
    // split("") walks UTF-16 units, so both surrogates of a tag character are escaped.
    (match) =>
      match.split("").map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join(""),
  );
}
