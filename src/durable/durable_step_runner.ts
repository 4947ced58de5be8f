/**
 * The loop's steps as steps of the durable engine (DBOS): each model call and each tool call is
 * one engine step, so a workflow the engine runs again after a crash gets every completed step's
 * result back from the database instead of doing it again. Engine steps are at-least-once, so a
 * tool-call step first writes a start mark: a step that finds its own mark was started by an
 * earlier execution that died, and is answered `interrupted` instead of running again (design
 * §8.3). Model calls have no effects and are simply asked again.
 *
 * @module
 */
import { DBOS, Error as DBOSErrors } from "@dbos-inc/dbos-sdk";
// @ts-types="@types/pg"
import type pg from "pg";
import type { Step, StepInfo, StepRunner } from "../loop/step_runner.ts";
import type { StepJournal } from "../loop/journal_step_runner.ts";
import { interruptedResult } from "../session/repair_transcript.ts";

/** What a {@linkcode durableStepRunner} needs. */
export interface DurableStepRunnerInit {
  /** Where the records of each step go (the run's session, which skips replayed writes). */
  journal: StepJournal;
  /** The queue's database (the start marks). */
  pool: pg.Pool;
  /** The workflow running the steps. */
  workflowId: string;
  /** This worker (written in each start mark). */
  workerId: string;
  /** Told when a tool call is answered `interrupted` because an earlier execution started it. */
  onInterrupted?: (info: StepInfo) => void | Promise<void>;
  /**
   * Called inside the engine step, after a tool call whose scope can write the workspace ran and
   * before its result is recorded (a git run pushes its checkpoint here: a step the engine
   * recorded has its files on the run branch). What it throws fails the step. @default nothing
   */
  afterWrite?: (info: Extract<StepInfo, { type: "tool_call" }>) => Promise<void>;
  /** Awaited at each step's start and end (the event publisher's segments). @default none */
  boundary?: () => Promise<void>;
  /** Whether the run was cancelled (the engine then refuses to record its steps). */
  cancelled?: () => boolean;
}

/** The engine's name of a step: unique within a workflow, the same in every execution. */
export function stepName(info: StepInfo): string {
  return info.type === "model_call"
    ? `model_call:${info.iteration}:${info.purpose}`
    : `tool_call:${info.callId}`;
}

/**
 * A {@linkcode StepRunner} for a run inside a DBOS workflow.
 *
 * @param init the journal, database, workflow and worker
 * @returns the runner
 * @throws (from `run`) what the step throws, the database's errors
 *
 * @example Inside a workflow (needs PostgreSQL and a launched DBOS)
 * ```ts ignore
 * const steps = durableStepRunner({ journal: session, pool, workflowId: DBOS.workflowID!, workerId });
 * await host.startRun({ message: "fix the test", stepRunner: () => steps });
 * ```
 */
export function durableStepRunner(init: DurableStepRunnerInit): StepRunner {
  return {
    async run<T>(step: Step<T>): Promise<T> {
      const name = stepName(step.info);
      const info = step.info;
      await init.boundary?.();
      let work: Promise<T> | undefined;
      const result = await DBOS.runStep((): Promise<T> =>
        work = (async () => {
          if (info.type !== "tool_call") return await step.execute();
          const marked = await init.pool.query(
            `INSERT INTO odek.step_marks (workflow_id, step, worker_id) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING`,
            [init.workflowId, name, init.workerId],
          );
          if (marked.rowCount === 0) {
            await init.onInterrupted?.(info);
            return interruptedResult(info.callId, info.name) as T;
          }
          const done = await step.execute();
          if (info.writes && init.afterWrite) await init.afterWrite(info);
          return done;
        })(), { name, retriesAllowed: false }).catch(async (error) => {
          // A cancelled workflow records no step (the engine says cancelled, or no longer ours);
          // the run's cancel stops the step, whose result
          // (a call killed: interrupted) still goes to the session's journal.
          const cancelled = error instanceof DBOSErrors.DBOSWorkflowCancelledError ||
            (error instanceof DBOSErrors.DBOSWorkflowConflictError && init.cancelled?.() === true);
          if (!cancelled || !work) throw error;
          return await work;
        });
      await init.boundary?.();
      for (const message of step.records(result)) await init.journal.append(message);
      return result;
    },
  };
}
