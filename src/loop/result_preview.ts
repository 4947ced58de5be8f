/**
 * The previews of a tool result that events carry: its first lines or its last lines, each cut
 * with a marker that says how much is not shown (`… 42 more lines`), so a cut is never silent.
 *
 * @module
 */

/** Lines a preview shows at most. */
export const PREVIEW_LINES = 12;

/** Characters a preview shows at most. */
export const PREVIEW_CHARS = 1000;

/** The lines of `text` (a final newline ends the last line; it does not start another). */
export function resultLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * The first {@linkcode PREVIEW_LINES} lines (at most {@linkcode PREVIEW_CHARS} characters) of
 * `text`, and a last line `… N more lines` when anything was cut.
 *
 * @example
 * ```ts
 * import { previewHead } from "./result_preview.ts";
 * const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
 * if (!previewHead(text).endsWith("line 12\n… 8 more lines")) throw new Error(previewHead(text));
 * ```
 */
export function previewHead(text: string, lines = PREVIEW_LINES): string {
  const all = resultLines(text);
  let shown = all.slice(0, lines);
  let body = shown.join("\n");
  let partial = false;
  if (body.length > PREVIEW_CHARS) {
    body = body.slice(0, PREVIEW_CHARS);
    shown = body.split("\n");
    partial = true;
  }
  const rest = all.length - shown.length + (partial ? 1 : 0);
  if (rest <= 0) return body;
  return `${body}${partial ? "…" : ""}\n… ${rest} more line${rest === 1 ? "" : "s"}`;
}

/**
 * The last {@linkcode PREVIEW_LINES} lines (at most {@linkcode PREVIEW_CHARS} characters) of
 * `text`, after a first line `… N more lines` when anything was cut.
 *
 * @example
 * ```ts
 * import { previewTail } from "./result_preview.ts";
 * const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n");
 * if (!previewTail(text).startsWith("… 8 more lines\nline 9")) throw new Error(previewTail(text));
 * ```
 */
export function previewTail(text: string, lines = PREVIEW_LINES): string {
  const all = resultLines(text);
  let shown = all.slice(-lines);
  let body = shown.join("\n");
  let partial = false;
  if (body.length > PREVIEW_CHARS) {
    body = body.slice(-PREVIEW_CHARS);
    shown = body.split("\n");
    partial = true;
  }
  const rest = all.length - shown.length + (partial ? 1 : 0);
  if (rest <= 0) return body;
  return `… ${rest} more line${rest === 1 ? "" : "s"}\n${partial ? "…" : ""}${body}`;
}
