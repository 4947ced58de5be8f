/**
 * One question with lettered answers at the controlling terminal (e.g. what a restore does with
 * files changed outside odek).
 *
 * @module
 */
import { escapeControl } from "./_render_call.ts";
import { type PromptWriter, withTerminal } from "./_tty_lines.ts";

/** Options for {@linkcode askTerminalChoice}. */
export interface TerminalChoiceOptions {
  /** The terminal device answers are read from. @default "/dev/tty" */
  ttyPath?: string;
  /** Where the question is written. @default Deno.stderr */
  output?: PromptWriter;
}

/**
 * Ask `question` and read one answer from `/dev/tty` (never standard input, so piped input cannot
 * answer): the first letter of a choice picks it; an empty line, end of input or no terminal
 * picks `fallback`.
 *
 * @param question shown with control characters made visible
 * @param choices answer → what it stands for, e.g. `{ o: "overwrite", k: "keep", c: "cancel" }`
 * @param fallback the answer without one
 * @returns the chosen value, and whether a terminal was there to ask
 *
 * @example Without a terminal the fallback is chosen
 * ```ts
 * import { askTerminalChoice } from "./terminal_choice.ts";
 * const { value, asked } = await askTerminalChoice("Go?", { y: "yes", n: "no" }, "no", { ttyPath: "/nonexistent/tty" });
 * if (value !== "no" || asked) throw new Error(value);
 * ```
 */
export async function askTerminalChoice<T extends string>(
  question: string,
  choices: Record<string, T>,
  fallback: T,
  options: TerminalChoiceOptions = {},
): Promise<{ value: T; asked: boolean }> {
  return await withTerminal<{ value: T; asked: boolean }>(
    options.ttyPath ?? "/dev/tty",
    options.output ?? Deno.stderr,
    undefined,
    () => ({ value: fallback, asked: false }),
    async (tty) => {
      const keys = Object.keys(choices);
      for (let attempt = 0; attempt < 3; attempt++) {
        await tty.write(`${escapeControl(question)} [${keys.join("/")}] `);
        const line = await tty.readLine();
        if (line === null || line.trim() === "") return { value: fallback, asked: true };
        const key = line.trim()[0].toLowerCase();
        if (key in choices) return { value: choices[key], asked: true };
      }
      return { value: fallback, asked: true };
    },
  );
}
