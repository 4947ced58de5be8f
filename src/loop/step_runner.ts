/**
 * The step seam: every model call and every tool call of a run goes through a
 * {@linkcode StepRunner}, which runs it and records its result. The default records to the
 * session journal (`journalStepRunner`); a durable engine can wrap the same steps (record
 * each result under the step's id, return the recorded result instead of running a step again
 * after a crash) without changing the loop.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";

/** What a step is: enough to name it uniquely within a session and to show it. */
export type StepInfo =
  | {
    type: "model_call";
    /** 1-based model turn of the run. */
    iteration: number;
    /** `turn`: the loop's next turn; `partial_summary`: the tool-less call when turns are spent. */
    purpose: "turn" | "partial_summary";
  }
  | {
    type: "tool_call";
    /** The model turn of this run that asked for the call (0: a call an earlier run left pending). */
    iteration: number;
    /** The tool-call id (unique within the session). */
    callId: string;
    /** The tool name, as the model wrote it. */
    name: string;
    /**
     * Whether the call's approved scope can write the workspace (`callCanWrite`): such steps
     * get a checkpoint before and after them. @default false
     */
    writes?: boolean;
  };

/** One step: the work, and the transcript records of its result. */
export interface Step<T> {
  readonly info: StepInfo;
  /**
   * Do the work once (a streamed model turn, a tool call). Its result must be plain data (a
   * durable runner stores it). Tool failures are results; it throws only for operator-facing
   * faults and aborts.
   */
  execute(): Promise<T>;
  /** The messages that record `result` in the transcript, in order (none: nothing to record). */
  records(result: T): ChatMessage[];
}

/**
 * Runs the loop's steps. Implementations must allow several tool-call steps at once (a batch
 * runs up to `maxToolParallel` calls in parallel) and must have recorded a step's messages
 * durably when {@linkcode StepRunner.run} resolves: the loop runs no tool call before the
 * assistant message that asked for it is recorded.
 */
export interface StepRunner {
  /**
   * Run `step` and record its result.
   *
   * @returns the step's result
   * @throws what `step.execute()` throws (nothing is recorded then), or the recording's error
   */
  run<T>(step: Step<T>): Promise<T>;
}
