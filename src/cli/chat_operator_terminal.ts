/**
 * The terminal the interactive session lends its approver and clarifier: prompts go to the
 * session's screen, answers come from its keyboard — single keys for choices (y / a / n / d),
 * the line editor for words and reasons — and Esc or Ctrl-C interrupts the run instead.
 *
 * @module
 */
import type { OperatorTerminal } from "../approval/_tty_lines.ts";
import type { TextSink } from "./cli_io.ts";
import { readLine } from "./line_editor.ts";
import type { KeySource } from "./terminal_keys.ts";

/** What the session gives {@linkcode chatOperatorTerminal}. */
export interface ChatOperatorHooks {
  keys: KeySource;
  out: TextSink;
  columns: () => number;
  /** A question starts: stop watching the keys for Esc, hide the status line. */
  begin(): void;
  /** It ended: watch again, show the status line again. */
  end(): void;
  /** Esc or Ctrl-C during a question: interrupt the run. */
  interrupt(by: string): void;
}

/**
 * Make the session's operator terminal. Keys typed before a question is shown are dropped, so
 * typing ahead can never answer it. A prompt's last, unfinished line is kept and shown as the
 * editor's prompt, so the editor's redraw never erases it.
 *
 * @example A single-key answer
 * ```ts
 * import { chatOperatorTerminal } from "./chat_operator_terminal.ts";
 * const keys = [{ type: "text", text: "y" }];
 * let screen = "";
 * const terminal = chatOperatorTerminal({
 *   keys: { next: () => Promise.resolve(keys.shift() ?? null), drain() {} } as never,
 *   out: { write: (t) => void (screen += t) },
 *   columns: () => 80,
 *   begin() {},
 *   end() {},
 *   interrupt() {},
 * });
 * const lines = terminal.open();
 * await lines.write("Run it? y = yes, n = no: ");
 * const answer = await lines.readKey!("yn");
 * lines.close();
 * if (answer !== "y" || !screen.endsWith("Run it? y = yes, n = no: y\n")) throw new Error(screen);
 * ```
 */
export function chatOperatorTerminal(hooks: ChatOperatorHooks): OperatorTerminal {
  const { keys, out } = hooks;
  return {
    open: (signal) => {
      hooks.begin();
      keys.drain();
      let prompt = "";
      const write = (text: string) => {
        const end = text.lastIndexOf("\n");
        if (end < 0) return void (prompt += text);
        out.write(prompt + text.slice(0, end + 1));
        prompt = text.slice(end + 1);
      };
      return {
        write: (text) => Promise.resolve(write(text)),
        readLine: async () => {
          const shown = prompt;
          prompt = "";
          const result = await readLine(keys, out, {
            prompt: shown,
            columns: hooks.columns,
            ...(signal ? { signal } : {}),
          });
          if (result.type === "submit") return result.text;
          if (result.type === "ctrl-c") hooks.interrupt("Ctrl-C");
          return null;
        },
        readKey: async (choices) => {
          out.write(prompt);
          prompt = "";
          while (true) {
            const key = await keys.next(signal);
            if (key === null) return null;
            if (key.type === "key" && (key.name === "escape" || key.name === "ctrl-c")) {
              out.write("\n");
              hooks.interrupt(key.name === "escape" ? "Esc" : "Ctrl-C");
              return null;
            }
            const c = key.type === "text" ? key.text[0].toLowerCase() : "";
            if (c !== "" && choices.includes(c)) {
              out.write(`${c}\n`);
              return c;
            }
          }
        },
        close: () => hooks.end(),
      };
    },
  };
}
