/**
 * The nesting depth of JSON text, measured without parsing it.
 *
 * @module
 */

/**
 * Deepest nesting of arrays and objects a tool call's arguments may have. Every built-in tool
 * takes a flat object; 64 levels leaves room for any honest call while keeping recursive code
 * (redaction, canonical JSON, `JSON.stringify` of events) far from the call-stack limit.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * How deeply `[` and `{` nest in `text`, brackets inside JSON strings not counted. One linear
 * pass with no recursion, so it is safe on hostile input (a model reply of 200,000 `[`).
 * Unbalanced or invalid text still gets a number: the deepest level reached.
 *
 * @param text JSON text (valid or not)
 * @returns the nesting depth: 0 for a scalar, 1 for `{}` or `[1]`, 2 for `{"a":[1]}`
 *
 * @example
 * ```ts
 * import { jsonDepth } from "./json_depth.ts";
 * if (jsonDepth('{"a":[1,{"b":"[[["}]}') !== 3) throw new Error("brackets in strings counted");
 * if (jsonDepth("[".repeat(1000)) !== 1000) throw new Error("unbalanced text");
 * ```
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}
