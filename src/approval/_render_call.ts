/**
 * Text of an approval prompt (private to `approval/`): every asking call in full, with terminal
 * control characters made visible so a command cannot redraw or hide part of the prompt.
 *
 * @module
 */
import type { RiskClass } from "../danger/verdict.ts";
import type { ApprovalCall } from "./approver.ts";

// C0 except \n, DEL, C1, and invisible or reordering Unicode (zero-width, bidi including the
// Arabic letter mark, line separators, the Mongolian vowel separator, tag characters).
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;

/** `text` with every control or invisible character shown as `\xHH` / `\u{H}`; `\n` kept. */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const code = ch.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/** A single-line form: `escapeControl` plus `\n` shown as `\n`. */
export function escapeLine(text: string): string {
  return escapeControl(text).replace(/\n/g, "\\n");
}

/** What the call does, in full: the preview, else the command, else the path, else the args. */
function subjectOf(call: ApprovalCall): string {
  if (call.preview !== undefined) return call.preview;
  const { command, path } = call.args;
  if (typeof command === "string") return command;
  if (typeof path === "string") return path;
  return JSON.stringify(call.args, null, 2) ?? String(call.args);
}

/**
 * The block for call number `n`: tool and subject (every line prefixed with `|` so that a
 * newline in a command cannot imitate the prompt), then one line per part and the reason.
 */
export function renderCall(n: number, call: ApprovalCall, classes: readonly RiskClass[]): string {
  const lines = [
    `  ${n}. ${escapeLine(call.toolName)} [${classes.join(", ")}]${
      call.agent ? ` asked by ${escapeLine(call.agent)}` : ""
    }`,
  ];
  for (const line of escapeControl(subjectOf(call)).split("\n")) lines.push(`     | ${line}`);
  for (const part of call.verdict.parts) {
    const targets = part.targets.length > 0 ? ` -> ${part.targets.map(escapeLine).join(", ")}` : "";
    const detail = part.detail ? ` (${escapeLine(part.detail)})` : "";
    lines.push(`     - ${part.riskClass}: ${escapeLine(part.subject)}${targets}${detail}`);
  }
  lines.push(`     why: ${escapeLine(call.verdict.reason)}`);
  return lines.join("\n");
}
