/**
 * The clarifier seam: how the `clarify` tool reaches the operator. A clarifier answers one
 * question with free text, or says nobody can answer (odek-go §4: `clarify {question}` blocks
 * until the platform answers). It also answers elicitations (an MCP server's form or URL,
 * `elicitation.ts`).
 *
 * @module
 */
import type { ElicitationAnswer, ElicitationRequest } from "./elicitation.ts";

/**
 * The operator's answer, or why there is none. Never thrown: the loop returns it to the model.
 *
 * @example Answered, and not
 * ```ts
 * import type { ClarifyAnswer } from "./clarifier.ts";
 * const answers: ClarifyAnswer[] = [
 *   { answered: true, answer: "the main branch" },
 *   { answered: false, reason: "nobody is at the terminal" },
 * ];
 * if (!answers[0].answered) throw new Error("first is answered");
 * ```
 */
export type ClarifyAnswer =
  | { answered: true; answer: string }
  | { answered: false; reason: string };

/**
 * Asks the operator a question.
 *
 * @example A clarifier with fixed answers
 * ```ts
 * import type { Clarifier, ClarifyAnswer } from "./clarifier.ts";
 * const known = new Map([["Which branch?", "main"]]);
 * const clarifier: Clarifier = {
 *   ask(question: string): Promise<ClarifyAnswer> {
 *     const answer = known.get(question);
 *     return Promise.resolve(
 *       answer === undefined ? { answered: false, reason: "not known" } : { answered: true, answer },
 *     );
 *   },
 * };
 * const reply = await clarifier.ask("Which branch?");
 * if (!reply.answered || reply.answer !== "main") throw new Error("answer");
 * ```
 */
export interface Clarifier {
  /**
   * Ask `question` (already redacted) and wait for the answer.
   *
   * @param signal aborting stops waiting and rejects with `signal.reason`
   */
  ask(question: string, signal?: AbortSignal): Promise<ClarifyAnswer>;
  /**
   * Ask for structured input (a form, or a URL to visit; see `elicitation.ts`). A clarifier
   * without it cannot answer elicitations: they are declined with a reason.
   *
   * @param signal aborting stops waiting and rejects with `signal.reason`
   */
  elicit?(request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer>;
}

/**
 * The clarifier of runs where nobody can answer (`--json`, no terminal, sub-agents): every
 * question is answered with a reason telling the model to go on without it.
 *
 * @example Nobody answers, and the model is told why
 * ```ts
 * import { NoOperatorClarifier } from "./clarifier.ts";
 * const answer = await new NoOperatorClarifier("the run is non-interactive").ask("Which branch?");
 * if (answer.answered) throw new Error("nobody should answer");
 * ```
 */
export class NoOperatorClarifier implements Clarifier {
  readonly #why: string;

  /**
   * A clarifier that answers nothing.
   *
   * @param why why nobody can answer, e.g. "no terminal is attached"
   */
  constructor(why: string) {
    this.#why = why;
  }

  /** Always `{ answered: false }` with a reason that says how to continue. */
  ask(_question: string, signal?: AbortSignal): Promise<ClarifyAnswer> {
    signal?.throwIfAborted();
    return Promise.resolve({
      answered: false,
      reason:
        `Nobody can answer: ${this.#why}. Continue on your best judgement and state the assumption you made in your final answer.`,
    });
  }

  /** Always declined, with the reason nobody can answer. */
  elicit(_request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer> {
    signal?.throwIfAborted();
    return Promise.resolve({
      action: "decline",
      reason: `Nobody can answer: ${this.#why}.`,
    });
  }
}
