/**
 * The interactive clarifier: asks the person at the controlling terminal.
 *
 * @module
 */
import type { Clarifier, ClarifyAnswer } from "./clarifier.ts";
import type { ElicitationAnswer, ElicitationRequest } from "./elicitation.ts";
import { escapeControl } from "./_render_call.ts";
import { elicitOnTerminal } from "./_terminal_elicitation.ts";
import { type OperatorTerminal, type PromptWriter, withTerminal } from "./_tty_lines.ts";

/** Options for {@linkcode TerminalClarifier}. */
export interface TerminalClarifierOptions {
  /** The terminal device answers are read from. @default "/dev/tty" */
  ttyPath?: string;
  /** A terminal someone else reads (the interactive session), asked instead of `ttyPath`. */
  terminal?: OperatorTerminal;
  /** Where the question is written. @default Deno.stderr */
  output?: PromptWriter;
  /** Longest answer kept, in characters; longer answers are cut. @default 4000 */
  maxAnswerChars?: number;
}

/**
 * Asks at the controlling terminal, like {@linkcode TerminalApprover}: the answer is read from
 * `/dev/tty`, never from standard input, so piped input cannot answer. The question is shown
 * with control characters made visible. An empty line, end of input, or no terminal at all
 * means no answer, with a reason the model can act on.
 *
 * @example Without a terminal nobody answers
 * ```ts
 * import { TerminalClarifier } from "./terminal_clarifier.ts";
 * const answer = await new TerminalClarifier({ ttyPath: "/nonexistent/tty" }).ask("Which branch?");
 * if (answer.answered || !/no terminal/.test(answer.reason)) throw new Error("expected no answer");
 * ```
 */
export class TerminalClarifier implements Clarifier {
  readonly #ttyPath: string | OperatorTerminal;
  readonly #output: PromptWriter;
  readonly #max: number;

  /** @param options terminal path, output and answer cap */
  constructor(options: TerminalClarifierOptions = {}) {
    this.#ttyPath = options.terminal ?? options.ttyPath ?? "/dev/tty";
    this.#output = options.output ?? Deno.stderr;
    this.#max = options.maxAnswerChars ?? 4000;
  }

  /** Ask and wait; see the class comment for the outcomes. */
  async ask(question: string, signal?: AbortSignal): Promise<ClarifyAnswer> {
    signal?.throwIfAborted();
    return await withTerminal(this.#ttyPath, this.#output, signal, (cause) => ({
      answered: false,
      reason:
        `Nobody can answer: no terminal was available to ask the operator (${cause}). Continue on your best judgement and state the assumption you made.`,
    }), async (tty): Promise<ClarifyAnswer> => {
      await tty.write(
        `\nodek: the model asks:\n  ${escapeControl(question)}\nanswer (empty line: no answer)> `,
      );
      const line = await tty.readLine();
      if (line === null || line.trim() === "") {
        return {
          answered: false,
          reason:
            "The operator gave no answer. Continue on your best judgement and state the assumption you made.",
        };
      }
      return { answered: true, answer: line.trim().slice(0, this.#max) };
    });
  }

  /**
   * Ask for an elicitation's fields one by one (their type, default and choices shown; an empty
   * answer keeps the default), or show its URL (never opened). No terminal: declined with the
   * reason; the terminal closing mid-form: cancelled.
   */
  async elicit(request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer> {
    signal?.throwIfAborted();
    return await withTerminal(
      this.#ttyPath,
      this.#output,
      signal,
      (cause): ElicitationAnswer => ({
        action: "decline",
        reason: `Nobody can answer: no terminal was available to ask the operator (${cause}).`,
      }),
      (tty) => elicitOnTerminal(tty, request, this.#max),
    );
  }
}
