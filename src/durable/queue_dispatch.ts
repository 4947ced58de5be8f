/**
 * `odek serve --queue`: serve's runs go onto the durable queue, and serve records how they ended.
 *
 * @module
 */
import type { RunOutcome } from "../runtime/run_outcome.ts";
import type { QueueClient } from "./queue_client.ts";
import type { QueuedRunGit, QueuedRunGitResult } from "./queued_run.ts";

/** The part of a serve run record a queued run is made from. */
export interface DispatchableRun {
  /** The record's key: the run's id on the queue (idempotent). */
  key: string;
  sessionId: string;
  workspace: string;
  task?: string;
  message?: string;
  /** The workspace as a repository and ref (then `workspace` only names it). */
  git?: QueuedRunGit;
}

/** How a queued run ended, as serve records it. */
export interface QueuedEnd {
  state: RunOutcome["type"];
  summary: string;
  errorCode?: string;
  /** A git run's branch and diff. */
  git?: Omit<QueuedRunGitResult, "repository" | "ref">;
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
      ...(run.git ? { git: gitOf(run.git) } : { workspace: run.workspace }),
      ...(run.task !== undefined ? { task: run.task } : {}),
      ...(run.message !== undefined ? { message: run.message } : {}),
    });
    const result = await queue.wait(run.key);
    const git = result.git ? { git: gitEnd(result.git) } : {};
    if (result.outcome === "awaiting_approval") {
      // The workflow ended without a slot; QueueClient.answer continues it.
      return { state: "interrupted", summary: result.text, errorCode: "AWAITING_APPROVAL", ...git };
    }
    const state = (OUTCOMES.has(result.outcome) ? result.outcome : "failed") as QueuedEnd["state"];
    return {
      state,
      summary: result.text,
      ...(state === "completed" ? {} : { errorCode: state.toUpperCase() }),
      ...git,
    };
  };
}

function gitEnd({ repository: _r, ref: _f, ...rest }: QueuedRunGitResult): QueuedEnd["git"] {
  return rest;
}

/** Only the request's fields (a record may carry an earlier result's too). */
function gitOf({ repository, ref, branch, remote }: QueuedRunGit): QueuedRunGit {
  return {
    repository,
    ref,
    ...(branch !== undefined ? { branch } : {}),
    ...(remote !== undefined ? { remote } : {}),
  };
}
