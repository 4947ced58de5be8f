/**
 * What a queued run is: the request `serve` (or any client) puts on the queue, and what a worker
 * returns when the run's workflow ends.
 *
 * @module
 */
import { z } from "zod";
import type { PausedApproval } from "./pausing_approver.ts";

/**
 * A run on the queue. A new session names its `task`; an existing one gets `message` (or
 * nothing: resume what it left pending).
 *
 * @example A new session's run
 * ```ts
 * import type { QueuedRun } from "./queued_run.ts";
 * const run: QueuedRun = { runId: "r1", sessionId: "s1", task: "fix the test", workspace: "/srv/ws" };
 * if (run.message !== undefined) throw new Error("a new session has a task");
 * ```
 */
export interface QueuedRun {
  /** The run's id: the workflow id (a continuation after an approval: `<run>:<approval id>`). */
  runId: string;
  /** The session the run journals to (in the queue's database). */
  sessionId: string;
  /** A new session's task. */
  task?: string;
  /** The next operator message of an existing session. */
  message?: string;
  /** The workspace: a path every worker reaches. */
  workspace: string;
  /** A continuation's answers to the approval its run paused at. */
  approvals?: { callId: string; approved: boolean; reason?: string }[];
}

/** The zod schema of {@linkcode QueuedRun} (the edge where a request comes off the queue). */
export const QueuedRunSchema: z.ZodType<QueuedRun> = z.object({
  runId: z.string().min(1).max(200),
  sessionId: z.string().min(1).max(200),
  task: z.string().max(100_000).optional(),
  message: z.string().max(100_000).optional(),
  workspace: z.string().startsWith("/"),
  approvals: z.array(z.object({
    callId: z.string().min(1),
    approved: z.boolean(),
    reason: z.string().max(2000).optional(),
  })).max(256).optional(),
});

/**
 * How a queued run ended.
 *
 * @example
 * ```ts
 * import type { QueuedRunResult } from "./queued_run.ts";
 * const result: QueuedRunResult = { runId: "r1", sessionId: "s1", outcome: "completed", text: "done", workerId: "w1" };
 * if (result.outcome !== "completed") throw new Error(result.outcome);
 * ```
 */
export interface QueuedRunResult {
  /** The run's id. */
  runId: string;
  /** Its session. */
  sessionId: string;
  /**
   * The run's outcome type (`completed`, `budget_exceeded`, `stalled`, `interrupted`, `failed`),
   * or `awaiting_approval`: the run paused at `approval` and its workflow ended.
   */
  outcome: string;
  /** The approval a run paused at. */
  approval?: PausedApproval;
  /** The final answer (completed) or the error's message. */
  text: string;
  /** The worker that finished it. */
  workerId: string;
}
