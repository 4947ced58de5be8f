/**
 * `odek serve --queue`: serve's runs go onto the durable queue, and serve records how they ended.
 *
 * @module
 */
import type { RunOutcome } from "../runtime/run_outcome.ts";
import type { QueueClient } from "./queue_client.ts";
import type { QueuedRunGit, QueuedRunGitResult, QueuedRunResult } from "./queued_run.ts";

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
  /** The worker's warnings of the run's host (see `QueuedRunResult.warnings`). */
  warnings?: string[];
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
    const result = await followChain(queue, run.key);
    const git = result.git ? { git: gitEnd(result.git) } : {};
    const state = (OUTCOMES.has(result.outcome) ? result.outcome : "failed") as QueuedEnd["state"];
    return {
      state,
      summary: result.text,
      ...(state === "completed" ? {} : { errorCode: state.toUpperCase() }),
      ...git,
      ...(result.warnings?.length ? { warnings: result.warnings } : {}),
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

/** Milliseconds between looks at a paused or cancelled run's row. */
const LOOK_MS = 250;
/** How long a cancelled run's worker has to record its end before serve records it. */
const CANCEL_GRACE_MS = 30_000;

/**
 * Wait for a run's end through its continuations: a run that paused for an approval goes on as
 * `<run>:<approval id>` once someone answers (from any serve or `QueueClient.answer`), and serve
 * shows it as one run waiting, as it shows a local run's approval.
 */
async function followChain(queue: QueueClient, key: string): Promise<QueuedRunResult> {
  let id = key;
  for (;;) {
    const result = await queue.wait(id).catch(async (error) => {
      if ((await queue.status(id))?.cancelReason) return await cancelledEnd(queue, id);
      throw error;
    });
    if (result.outcome !== "awaiting_approval" || !result.approval) return result;
    const next = `${id}:${result.approval.id}`;
    for (;;) {
      if (await queue.status(next)) break;
      const paused = await queue.status(id);
      if (paused && paused.state !== "awaiting_approval") return paused.result ?? result;
      await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
    }
    id = next;
  }
}

/** A cancelled workflow's end: what its worker recorded, or (after a grace) recorded here. */
async function cancelledEnd(queue: QueueClient, id: string): Promise<QueuedRunResult> {
  const deadline = Date.now() + CANCEL_GRACE_MS;
  for (;;) {
    const status = await queue.status(id);
    const ended = status && status.state !== "queued" && status.state !== "running";
    if (ended && status.result) return status.result;
    if (Date.now() > deadline && !(await queue.settleCancelled(id))) {
      throw new Error(`The cancelled run ${id} has no end recorded.`);
    }
    await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
  }
}
