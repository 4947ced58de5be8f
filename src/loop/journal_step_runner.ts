/**
 * The default {@linkcode StepRunner}: the session journal.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { Step, StepRunner } from "./step_runner.ts";

/** Where a {@linkcode journalStepRunner} appends: an open session satisfies it. */
export interface StepJournal {
  /** Append one message durably (written and fsynced when the promise resolves). */
  append(message: ChatMessage): Promise<void>;
}

/**
 * The default runner: execute the step, then append its records to the journal, in order, each
 * written and fsynced before the next (design §5).
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
      for (const message of step.records(result)) await journal.append(message);
      return result;
    },
  };
}
