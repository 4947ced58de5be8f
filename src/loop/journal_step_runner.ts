/**
 * The default {@linkcode StepRunner}: the session journal.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { endPhase, startPhase } from "../_util/step_phase.ts";
import type { Step, StepRunner } from "./step_runner.ts";

/** Where a {@linkcode journalStepRunner} appends: an open session satisfies it. */
export interface StepJournal {
  /**
   * Append one message (written when the promise resolves; durable by the next call's start, see
   * `OpenSession.append`).
   */
  append(message: ChatMessage): Promise<void>;
}

/**
 * The default runner: execute the step, then append its records to the journal, in order, each
 * written before the next (design §5; the journal decides when each is fsynced).
 *
 * @param journal the run's session
 * @returns the runner
 *
 * @example Record a tool result
 * ```ts
 * import type { ChatMessage } from "../_util/chat_message.ts";
 * import { journalStepRunner } from "./journal_step_runner.ts";
 * const written: ChatMessage[] = [];
 * const runner = journalStepRunner({ append: (m) => Promise.resolve(void written.push(m)) });
 * const message = await runner.run({
 *   info: { type: "tool_call", iteration: 1, callId: "c1", name: "glob" },
 *   execute: () => Promise.resolve({ role: "tool" as const, tool_call_id: "c1", content: "a.md" }),
 *   records: (m) => [m],
 * });
 * if (written.length !== 1 || written[0] !== message) throw new Error("not recorded");
 * ```
 */
export function journalStepRunner(journal: StepJournal): StepRunner {
  return {
    async run<T>(step: Step<T>): Promise<T> {
      const result = await step.execute();
      const start = startPhase();
      for (const message of step.records(result)) await journal.append(message);
      endPhase(`journal:${step.info.type}`, start);
      return result;
    },
  };
}
