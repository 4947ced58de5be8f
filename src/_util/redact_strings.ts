/**
 * Deep redaction of structured data (event payloads, parsed JSON).
 *
 * @module
 */

/**
 * A copy of `value` with `redact` applied to every string in it; keys, numbers, booleans and
 * `null` are kept. Plain objects and arrays are copied; other values are returned as they are.
 *
 * @param value any JSON-like value
 * @param redact the redactor
 * @returns the redacted copy
 *
 * @example
 * ```ts
 * import { redactStrings } from "./redact_strings.ts";
 * const out = redactStrings({ a: ["x-secret"], n: 1 }, (t) => t.replace("secret", "***"));
 * if (JSON.stringify(out) !== '{"a":["x-***"],"n":1}') throw new Error(JSON.stringify(out));
 * ```
 */
export function redactStrings<T>(value: T, redact: (text: string) => string): T {
  return walk(value, redact) as T;
}

function walk(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, redact));
  if (
    value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype
  ) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, walk(item, redact)]),
    );
  }
  return value;
}
