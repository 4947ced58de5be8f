/**
 * The interactive session's prompt: a line editor over {@linkcode KeySource} keys with history,
 * multi-line input (a paste keeps its newlines; Alt-Enter or Ctrl-J, or a line ending in `\`,
 * starts a new line) and Tab completion.
 *
 * @module
 */
import type { TextSink } from "./cli_io.ts";
import type { KeySource } from "./terminal_keys.ts";

/** Options of {@linkcode readLine}. */
export interface ReadLineOptions {
  /** The first line's prompt (plain text). */
  prompt: string;
  /** Earlier inputs, oldest first: Up and Down walk it. @default none */
  history?: readonly string[];
  /** Candidates that complete `text` (the whole input so far), for Tab. @default none */
  complete?: (text: string) => readonly string[];
  /** Terminal width in columns. @default 80 */
  columns?: () => number;
  /** Text to start with (typed ahead). @default "" */
  initial?: string;
  /** Aborting it stops the reading: `readLine` rejects with its reason. */
  signal?: AbortSignal;
}

/** How a {@linkcode readLine} ended. */
export type LineResult =
  | { type: "submit"; text: string }
  /** Ctrl-C; `cleared` when it cleared typed text (else the line was empty). */
  | { type: "ctrl-c"; cleared: boolean }
  /** Ctrl-D on an empty line, or the end of input. */
  | { type: "eof" };

const CONTINUATION = "… ";

/**
 * Read one input. Enter submits; Left/Right/Home/End (Ctrl-A/E) move; Backspace, Delete,
 * Ctrl-U (to line start), Ctrl-K (to end), Ctrl-W (word) delete; Esc clears the input.
 *
 * @param keys the keyboard
 * @param out where the prompt and the echo go (the terminal)
 * @param options prompt, history, completion
 * @returns what the operator did
 *
 * @example Typing, a completion and Enter
 * ```ts
 * import { readLine } from "./line_editor.ts";
 * const script = [{ type: "text", text: "/he" }, { type: "key", name: "tab" }, { type: "key", name: "enter" }];
 * const keys = { next: () => Promise.resolve(script.shift() ?? null), drain() {} } as never;
 * const result = await readLine(keys, { write() {} }, {
 *   prompt: "> ",
 *   complete: (text) => ["/help", "/history"].filter((c) => c.startsWith(text)),
 * });
 * if (result.type !== "submit" || result.text !== "/help ") throw new Error(JSON.stringify(result));
 * ```
 */
export async function readLine(
  keys: KeySource,
  out: TextSink,
  options: ReadLineOptions,
): Promise<LineResult> {
  const history = [...(options.history ?? []), ""];
  let index = history.length - 1;
  let text = options.initial ?? "";
  let cursor = text.length;
  let row = 0; // the terminal row of the cursor, counted from the prompt's first row
  const columns = () => Math.max(10, options.columns?.() ?? 80);

  const draw = () => {
    const cols = columns();
    const lines = text.split("\n");
    const prefixes = lines.map((_, i) => (i === 0 ? options.prompt : CONTINUATION));
    let screen = row > 0 ? `\x1b[${row}A` : "";
    screen += `\r\x1b[J${lines.map((l, i) => prefixes[i] + l).join("\r\n")}`;
    // Where the end is, and where the cursor goes (rows of wrapped lines counted).
    const rowsOf = (width: number) => Math.floor(width / cols);
    let endRow = 0;
    lines.forEach((l, i) => (endRow += (i > 0 ? 1 : 0) + rowsOf(prefixes[i].length + l.length)));
    const lastWidth = prefixes.at(-1)!.length + lines.at(-1)!.length;
    if (lastWidth > 0 && lastWidth % cols === 0) screen += " \b"; // leave the pending wrap
    const before = text.slice(0, cursor).split("\n");
    let target = 0;
    before.forEach((l, i) => (target += (i > 0 ? 1 : 0) + rowsOf(prefixes[i].length + l.length)));
    const col = (prefixes[before.length - 1].length + before.at(-1)!.length) % cols;
    if (endRow > target) screen += `\x1b[${endRow - target}A`;
    screen += `\r${col > 0 ? `\x1b[${col}C` : ""}`;
    row = target;
    out.write(screen);
  };
  const finish = () => {
    // Leave the cursor under the input.
    cursor = text.length;
    draw();
    out.write("\r\n");
    row = 0;
  };
  const insert = (s: string) => {
    text = text.slice(0, cursor) + s + text.slice(cursor);
    cursor += s.length;
  };

  out.write("\x1b[?2004h"); // bracketed paste: a paste arrives whole, newlines kept
  try {
    draw();
    while (true) {
      const key = await keys.next(options.signal);
      if (key === null) {
        finish();
        return { type: "eof" };
      }
      if (key.type === "text" || key.type === "paste") {
        insert(key.text);
        draw();
        continue;
      }
      switch (key.name) {
        case "enter":
          if (text.slice(0, cursor).endsWith("\\")) {
            text = text.slice(0, cursor - 1) + "\n" + text.slice(cursor);
            break;
          }
          finish();
          return { type: "submit", text };
        case "newline":
          insert("\n");
          break;
        case "ctrl-c": {
          const cleared = text !== "";
          finish();
          return { type: "ctrl-c", cleared };
        }
        case "ctrl-d":
          if (text === "") {
            finish();
            return { type: "eof" };
          }
          text = text.slice(0, cursor) + text.slice(cursor + 1);
          break;
        case "escape":
          text = "";
          cursor = 0;
          break;
        case "backspace":
          if (cursor > 0) {
            text = text.slice(0, cursor - 1) + text.slice(cursor);
            cursor--;
          }
          break;
        case "delete":
          text = text.slice(0, cursor) + text.slice(cursor + 1);
          break;
        case "left":
          cursor = Math.max(0, cursor - 1);
          break;
        case "right":
          cursor = Math.min(text.length, cursor + 1);
          break;
        case "home":
        case "ctrl-a":
          cursor = text.lastIndexOf("\n", cursor - 1) + 1;
          break;
        case "end":
        case "ctrl-e": {
          const end = text.indexOf("\n", cursor);
          cursor = end < 0 ? text.length : end;
          break;
        }
        case "ctrl-u": {
          const start = text.lastIndexOf("\n", cursor - 1) + 1;
          text = text.slice(0, start) + text.slice(cursor);
          cursor = start;
          break;
        }
        case "ctrl-k": {
          const end = text.indexOf("\n", cursor);
          text = text.slice(0, cursor) + (end < 0 ? "" : text.slice(end));
          break;
        }
        case "ctrl-w": {
          const start = text.slice(0, cursor).replace(/\S+\s*$/, "").length;
          text = text.slice(0, start) + text.slice(cursor);
          cursor = start;
          break;
        }
        case "up":
        case "down": {
          const next = index + (key.name === "up" ? -1 : 1);
          if (next < 0 || next >= history.length) break;
          history[index] = text;
          index = next;
          text = history[index];
          cursor = text.length;
          break;
        }
        case "tab":
          complete();
          break;
        case "ctrl-l":
          out.write("\x1b[H\x1b[2J");
          row = 0;
          break;
        default:
          break;
      }
      draw();
    }
  } finally {
    out.write("\x1b[?2004l");
  }

  function complete(): void {
    const candidates = options.complete?.(text) ?? [];
    if (candidates.length === 0) return;
    let common = candidates[0];
    for (const c of candidates) {
      while (!c.startsWith(common)) common = common.slice(0, -1);
    }
    if (common.length > text.length) {
      text = common + (candidates.length === 1 ? " " : "");
      cursor = text.length;
      return;
    }
    if (candidates.length > 1) {
      // List them under the input, then draw the input again below.
      const saved = cursor;
      cursor = text.length;
      draw();
      out.write(`\r\n${candidates.join("  ")}\r\n`);
      row = 0;
      cursor = saved;
    }
  }
}
