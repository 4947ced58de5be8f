/**
 * Text from the model, a tool or a session file, made safe to print on a terminal.
 *
 * @module
 */
import { neutralizeText } from "../_util/neutralize_text.ts";

/**
 * Remove escape sequences (CSI, OSC incl. OSC 8 links, others), C0/C1 controls, bidi controls,
 * Unicode tag characters and zero-width runs (see `neutralizeText`), so nothing printed can move
 * the cursor, clear or rewrite the screen, set the title or clipboard, reorder or hide text. A
 * carriage return becomes a line break (a lone `\r` would let a line overwrite the one before).
 * Newline and tab stay, unless `oneLine`, which turns them into spaces.
 *
 * @param text the text to print
 * @param oneLine fold it onto one line @default false
 * @returns the printable text
 *
 * @example
 * ```ts
 * import { terminalSafe } from "./terminal_safe.ts";
 * const out = terminalSafe("ok\x1b[2J\rrm -rf \u202Eexe.txt");
 * if (out !== "ok\nrm -rf exe.txt") throw new Error(JSON.stringify(out));
 * ```
 */
export function terminalSafe(text: string, oneLine = false): string {
  const safe = neutralizeText(text).text.replace(/\r\n?/g, "\n");
  return oneLine ? safe.replace(/[\n\t]+/g, " ") : safe;
}
