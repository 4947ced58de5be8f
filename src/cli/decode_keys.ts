/**
 * Turns the bytes a terminal in raw mode sends into keys: typed text, bracketed pastes, Enter,
 * the editing and arrow keys, Ctrl combinations, and a lone Esc.
 *
 * Written for odek because the key decoder Deno 2.9's `node:readline` ships (which every npm
 * prompt library builds on) neither times out a lone Esc (Esc then an arrow key comes back as one
 * unknown key) nor knows bracketed paste (`ESC [200~` arrives as an unknown key and a `~`), as
 * checked under the pinned Deno in a tmux pane; docs/interactive.md has the details.
 *
 * @module
 */

/** A named key. */
export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "tab"
  | "escape"
  | "up"
  | "down"
  | "left"
  | "right"
  | "home"
  | "end"
  | "ctrl-a"
  | "ctrl-c"
  | "ctrl-d"
  | "ctrl-e"
  | "ctrl-k"
  | "ctrl-l"
  | "ctrl-u"
  | "ctrl-w";

/** One key press, a run of typed characters, or a whole paste. */
export type Key =
  | { type: "text"; text: string }
  | { type: "paste"; text: string }
  | { type: "key"; name: KeyName };

/** What {@linkcode decodeKeys} made of its input. */
export interface DecodedKeys {
  keys: Key[];
  /** The start of a sequence still incomplete: prepend it to the next input. */
  rest: string;
}

const CONTROL: Record<string, KeyName> = {
  "\r": "enter",
  "\n": "newline",
  "\x7f": "backspace",
  "\b": "backspace",
  "\t": "tab",
  "\x01": "ctrl-a",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x05": "ctrl-e",
  "\x0b": "ctrl-k",
  "\x0c": "ctrl-l",
  "\x15": "ctrl-u",
  "\x17": "ctrl-w",
};

const CSI: Record<string, KeyName> = {
  A: "up",
  B: "down",
  C: "right",
  D: "left",
  H: "home",
  F: "end",
  "1~": "home",
  "7~": "home",
  "4~": "end",
  "8~": "end",
  "3~": "delete",
};

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/**
 * Decode `input`. An Esc at the very end, or a sequence cut short, is kept in `rest` unless
 * `final` is set (the caller waited 100 ms and nothing followed: then a lone Esc is the Esc key).
 * A paste not yet ended is kept whole in `rest`. Line ends inside a paste become `\n`; other
 * control characters and unknown sequences are dropped.
 *
 * @param input text decoded from the terminal (UTF-8)
 * @param final nothing more arrived in time: a trailing Esc is a key of its own
 * @returns the keys, and what to keep for the next call
 *
 * @example Text, a paste with a newline, an arrow key and a lone Esc
 * ```ts
 * import { decodeKeys } from "./decode_keys.ts";
 * const { keys, rest } = decodeKeys("hi\x1b[200~a\r\nb\x1b[201~\x1b[A\x1b", false);
 * if (rest !== "\x1b" || keys.length !== 3) throw new Error(JSON.stringify(keys));
 * if (keys[1].type !== "paste" || keys[1].text !== "a\nb") throw new Error("paste");
 * const last = decodeKeys(rest, true).keys[0];
 * if (last.type !== "key" || last.name !== "escape") throw new Error("esc");
 * ```
 */
export function decodeKeys(input: string, final: boolean): DecodedKeys {
  const keys: Key[] = [];
  let text = "";
  const flush = () => {
    if (text !== "") keys.push({ type: "text", text });
    text = "";
  };
  let i = 0;
  while (i < input.length) {
    if (input.startsWith(PASTE_START, i)) {
      const end = input.indexOf(PASTE_END, i + PASTE_START.length);
      if (end < 0) {
        flush();
        return { keys, rest: input.slice(i) };
      }
      flush();
      const pasted = input.slice(i + PASTE_START.length, end).replace(/\r\n?/g, "\n");
      keys.push({ type: "paste", text: pasted });
      i = end + PASTE_END.length;
      continue;
    }
    const ch = input[i];
    if (ch === "\x1b") {
      const next = input[i + 1];
      if (next === undefined) {
        flush();
        if (!final) return { keys, rest: input.slice(i) };
        keys.push({ type: "key", name: "escape" });
        i++;
        continue;
      }
      if (next === "[" || next === "O") {
        const match = /^[0-9;]*[@-~]/.exec(input.slice(i + 2));
        if (!match) {
          flush();
          if (!final && /^[0-9;]*$/.test(input.slice(i + 2))) return { keys, rest: input.slice(i) };
          i += 2;
          continue;
        }
        flush();
        const body = match[0].replace(/^1;\d+(?=[A-H])/, "");
        const name = CSI[body];
        if (name) keys.push({ type: "key", name });
        i += 2 + match[0].length;
        continue;
      }
      flush();
      // Alt-Enter: a new line in the input; Esc Esc: the Esc key; other Alt keys are dropped.
      if (next === "\r") keys.push({ type: "key", name: "newline" });
      if (next === "\x1b") {
        keys.push({ type: "key", name: "escape" });
        i++;
        continue;
      }
      i += 2;
      continue;
    }
    const control = CONTROL[ch];
    if (control) {
      flush();
      keys.push({ type: "key", name: control });
      i++;
      continue;
    }
    if (ch < " ") {
      i++;
      continue;
    }
    text += ch;
    i++;
  }
  flush();
  return { keys, rest: "" };
}
