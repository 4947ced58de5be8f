/**
 * What `odek serve --queue` needs of the queue besides dispatching: the events of runs that go on
 * workers, their pending approvals, and cancel. `src/durable/queue_remote.ts` implements it over
 * PostgreSQL; with it, a queued run's events, approval and cancel go through the same routes, the
 * same WebSocket and the same page as a local run's.
 *
 * @module
 */
import type { RuntimeEvent } from "../runtime/event_subscription.ts";

/** One asking call of a queued run's pending approval (before serve redacts it). */
export interface RemoteApprovalCall {
  callId: string;
  toolName: string;
  riskClasses: string[];
  /** The exact command or the file-write diff (else the arguments as JSON). */
  preview: string;
  reason: string;
}

/** A queued run's pending approval (its workflow ended `awaiting_approval`). */
export interface RemoteApproval {
  /** Its id over REST (`apr-` + 16 hex digits), the same on every serve of the queue. */
  id: string;
  /** The serve run it belongs to (its key: the first workflow's id). */
  key: string;
  sessionId: string;
  createdAt: string;
  calls: RemoteApprovalCall[];
}

/** One call's answer. */
export interface RemoteDecision {
  callId: string;
  approved: boolean;
  reason?: string;
}

/**
 * The queue as serve sees it.
 *
 * @example A queue with nothing on it
 * ```ts
 * import type { RemoteRuns } from "./remote_runs.ts";
 * const none: RemoteRuns = {
 *   events: () => Promise.resolve(undefined),
 *   tail: () => Promise.resolve(() => {}),
 *   cancel: () => Promise.resolve(false),
 *   approvals: () => Promise.resolve([]),
 *   answer: () => Promise.resolve("unknown"),
 *   approvalState: () => Promise.resolve("unknown"),
 * };
 * if ((await none.approvals()).length !== 0) throw new Error("none");
 * ```
 */
export interface RemoteRuns {
  /**
   * A run's events after `seq` `after`, then live until the run ends; undefined when the queue
   * has no events of `key` (unless `known`: this server dispatched it, its events are to come).
   */
  events(
    key: string,
    after: number,
    signal: AbortSignal,
    known?: boolean,
  ): Promise<AsyncIterable<RuntimeEvent> | undefined>;
  /** Be given every queued run's new events. @returns stops it */
  tail(onEvent: (event: RuntimeEvent) => void): Promise<() => void>;
  /**
   * Cancel a run (queued, going, or waiting for approval): its workflow is cancelled and the
   * worker running it stops it.
   *
   * @returns false when it has ended or is unknown
   */
  cancel(key: string, reason: string): Promise<boolean>;
  /** The pending approvals of every queued run. */
  approvals(): Promise<RemoteApproval[]>;
  /**
   * Answer a pending approval: starts the continuation `<run>:<approval id>`.
   *
   * @returns `answered`, `already` (answered before), or `unknown`
   */
  answer(id: string, decisions: RemoteDecision[]): Promise<"answered" | "already" | "unknown">;
  /** Where an approval is, without answering it. */
  approvalState(id: string): Promise<"pending" | "answered" | "unknown">;
}
