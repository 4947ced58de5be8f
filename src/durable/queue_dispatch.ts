/**
 * `odek serve --queue`: serve's runs go onto the durable queue, and serve records how they ended.
 *
 * @module
 */
import type { RunOutcome } from "../runtime/run_outcome.ts";
import type { QueueClient } from "./queue_client.ts";

/** The part of a serve run record a queued run is made from. */
export interface DispatchableRun {
  /** The record's key: the run's id on the queue (idempotent). */
  key: string;
  sessionId: string;
  workspace: string;
  task?: string;
  message?: string;
}

/** How a queued run ended, as serve records it. */
export interface QueuedEnd {
  state: RunOutcome["type"];
  summary: string;
  errorCode?: string;
}

const OUTCOMES = new Set(["completed", "budget_exceeded", "stalled", "interrupted", "failed"]);

/**
 * A dispatcher for `ServeRuns` that enqueues each run and waits for its workflow to end.
 *
 * @param queue the queue client
 * @returns the dispatcher
 *
 * @example Serve on the queue (needs PostgreSQL and workers)
 * ```ts ignore
 * await using queue = await QueueClient.connect(url);
 * await startServer(runtime, { version, dispatch: queueDispatch(queue) });
 * ```
 */
export function queueDispatch(queue: QueueClient): (run: DispatchableRun) => Promise<QueuedEnd> {
  return async (run) => {
    await queue.enqueue({
      runId: run.key,
      sessionId: run.sessionId,
      workspace: run.workspace,
      ...(run.task !== undefined ? { task: run.task } : {}),
      ...(run.message !== undefined ? { message: run.message } : {}),
    });
    const result = await queue.wait(run.key);
    if (result.outcome === "awaiting_approval") {
      // The workflow ended without a slot; QueueClient.answer continues it.
      return { state: "interrupted", summary: result.text, errorCode: "AWAITING_APPROVAL" };
    }
    const state = (OUTCOMES.has(result.outcome) ? result.outcome : "failed") as QueuedEnd["state"];
    return {
      state,
      summary: result.text,
      ...(state === "completed" ? {} : { errorCode: state.toUpperCase() }),
    };
  };
}
