/**
 * Short, markup-free descriptions of what a server sent back, for error messages: a web page is
 * named by its title, never dumped; anything else is cut to one short line.
 *
 * @module
 */

/** Cap on a quoted body in a message, in characters. */
export const BODY_QUOTE_LIMIT = 200;

/** Whether `text` (with its content type) is an HTML or XML document rather than data. */
export function looksLikeMarkup(text: string, contentType = ""): boolean {
  if (/\b(?:text\/html|application\/xhtml|text\/xml|application\/xml)\b/i.test(contentType)) {
    return true;
  }
  return /^\s*(?:<!doctype\s|<html[\s>]|<head[\s>]|<body[\s>]|<\?xml\s|<[a-z][a-z0-9]*[\s>])/i
    .test(text);
}

/**
 * One line describing a body: `a web page titled "404 Not Found"` for markup (`a web page` when
 * it has no title), else the text on one line, cut to `limit` characters with `…`, in quotes;
 * `an empty body` when there is nothing.
 *
 * @param text the body (or its first bytes)
 * @param contentType the response's `content-type`, when known
 * @param limit the longest quote, in characters
 *
 * @example
 * ```ts
 * import { describeBody } from "./_describe_body.ts";
 * const page = "<!DOCTYPE html><html><head><title>Welcome</title></head><body>…</body></html>";
 * if (describeBody(page) !== 'a web page titled "Welcome"') throw new Error(describeBody(page));
 * ```
 */
export function describeBody(text: string, contentType = "", limit = BODY_QUOTE_LIMIT): string {
  if (text.trim() === "") return "an empty body";
  if (looksLikeMarkup(text, contentType)) {
    const title = /<title[^>]*>([^<]*)</i.exec(text)?.[1];
    const clean = title === undefined ? "" : oneLine(decodeEntities(title), 80);
    return clean === "" ? "a web page" : `a web page titled "${clean}"`;
  }
  return `"${oneLine(text, limit)}"`;
}

/** `text` on one line without control characters, at most `limit` characters (then `…`). */
export function oneLine(text: string, limit: number): string {
  // deno-lint-ignore no-control-regex
  const line = text.replace(/[\u0000-\u001f\u007f-\u009f\s]+/g, " ").trim();
  return line.length <= limit ? line : `${line.slice(0, limit)}…`;
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] !== "#") return named[code.toLowerCase()] ?? whole;
    const n = code[1].toLowerCase() === "x" ? parseInt(code.slice(2), 16) : Number(code.slice(1));
    return n > 0x1f && n < 0x110000 ? String.fromCodePoint(n) : " ";
  });
}
