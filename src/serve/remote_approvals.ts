/**
 * Queued runs' pending approvals in serve's questions: every {@linkcode REMOTE_APPROVAL_POLL_MS}
 * serve looks at the queue and holds each approval a run paused at in its `OperatorRequests`
 * (so `GET /api/approvals`, the `request` events, the WebSocket and the page's card show it as
 * they show a local run's), and releases those answered elsewhere. An answer given here starts
 * the run's continuation `<run>:<approval id>`.
 *
 * @module
 */
import type { OperatorRequests } from "./operator_requests.ts";
import type { RemoteRuns } from "./remote_runs.ts";

/** Milliseconds between two looks at the queue's approvals. */
export const REMOTE_APPROVAL_POLL_MS = 500;

/** An answer the queue refused: answered already (409) or no such approval (404). */
export class AnswerRefused extends Error {
  /** `ALREADY_ANSWERED` or `NOT_PENDING`. */
  readonly code: "ALREADY_ANSWERED" | "NOT_PENDING";
  /** The HTTP status it answers with. */
  readonly status: 409 | 404;

  /** @param code why */
  constructor(code: "ALREADY_ANSWERED" | "NOT_PENDING", message: string) {
    super(message);
    this.name = "AnswerRefused";
    this.code = code;
    this.status = code === "ALREADY_ANSWERED" ? 409 : 404;
  }
}

/**
 * Follow the queue's approvals into `requests` until the returned function is called.
 *
 * @param remote the queue
 * @param requests serve's questions
 * @returns stops following
 *
 * @example Nothing pending on an empty queue
 * ```ts
 * import { followRemoteApprovals } from "./remote_approvals.ts";
 * import { OperatorRequests } from "./operator_requests.ts";
 * const requests = new OperatorRequests((text) => text);
 * const stop = followRemoteApprovals({
 *   events: () => Promise.resolve(undefined),
 *   tail: () => Promise.resolve(() => {}),
 *   cancel: () => Promise.resolve(false),
 *   approvals: () => Promise.resolve([]),
 *   answer: () => Promise.resolve("unknown"),
 *   approvalState: () => Promise.resolve("unknown"),
 * }, requests);
 * stop();
 * if (requests.list().length !== 0) throw new Error("pending");
 * ```
 */
export function followRemoteApprovals(
  remote: RemoteRuns,
  requests: OperatorRequests,
): () => void {
  const held = new Set<string>();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = async () => {
    try {
      const pending = await remote.approvals();
      const now = new Set(pending.map((approval) => approval.id));
      for (const id of held) {
        if (now.has(id)) continue;
        held.delete(id);
        requests.release(id);
      }
      for (const approval of pending) {
        if (held.has(approval.id) || requests.answered(approval.id)) continue;
        held.add(approval.id);
        requests.hold({
          id: approval.id,
          type: "approval",
          sessionId: approval.sessionId,
          createdAt: approval.createdAt,
          calls: approval.calls,
        }, async (reply) => {
          held.delete(approval.id);
          const got = await remote.answer(
            approval.id,
            reply.decisions.map((d) => ({
              callId: d.callId,
              approved: d.approved,
              ...(d.reason !== undefined ? { reason: d.reason } : {}),
            })),
          );
          if (got === "already") {
            throw new AnswerRefused("ALREADY_ANSWERED", `${approval.id} was answered already.`);
          }
          if (got === "unknown") {
            throw new AnswerRefused("NOT_PENDING", `${approval.id} is not a pending approval.`);
          }
        });
      }
    } catch {
      // the queue is away for a moment: look again
    }
    if (!stopped) timer = setTimeout(look, REMOTE_APPROVAL_POLL_MS);
  };
  void look();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
