/**
 * The queue as `odek serve --queue` sees it (serve's `RemoteRuns`): queued runs' events from
 * `odek.run_events`, their pending approvals from `odek.runs`, answers that start the
 * continuation, and cancel.
 *
 * @module
 */
import type { RuntimeEvent } from "../runtime/event_subscription.ts";
import type { QueueClient } from "./queue_client.ts";

/** A pending approval as serve shows it (serve's `RemoteApproval`). */
export interface QueueApproval {
  id: string;
  key: string;
  sessionId: string;
  createdAt: string;
  calls: {
    callId: string;
    toolName: string;
    riskClasses: string[];
    preview: string;
    reason: string;
  }[];
}

/** What {@linkcode queueRemote} returns: serve's `RemoteRuns` over one queue. */
export interface QueueRemote {
  events(key: string, after: number, signal: AbortSignal, known?: boolean): Promise<
    AsyncIterable<RuntimeEvent> | undefined
  >;
  tail(onEvent: (event: RuntimeEvent) => void): Promise<() => void>;
  cancel(key: string, reason: string): Promise<boolean>;
  approvals(): Promise<QueueApproval[]>;
  answer(
    id: string,
    decisions: { callId: string; approved: boolean; reason?: string }[],
  ): Promise<"answered" | "already" | "unknown">;
  approvalState(id: string): Promise<"pending" | "answered" | "unknown">;
}

/**
 * Serve's view of a queue.
 *
 * @param queue the queue client
 * @returns the remote runs
 *
 * @example Serve on the queue (needs PostgreSQL and workers)
 * ```ts ignore
 * await using queue = await QueueClient.connect(url);
 * await startServer(runtime, { version, dispatch: queueDispatch(queue), remote: queueRemote(queue) });
 * ```
 */
export function queueRemote(queue: QueueClient): QueueRemote {
  return {
    async events(key, after, signal, known) {
      const feed = await queue.events();
      if (!known && !(await feed.exists(key))) return undefined;
      return feed.follow(key, after, signal);
    },
    async tail(onEvent) {
      return await (await queue.events()).tail(onEvent);
    },
    async cancel(key, reason) {
      return (await queue.cancel(key, reason)) !== undefined;
    },
    async approvals() {
      const paused = await queue.approvals({ pending: true });
      return paused.filter((run) => !run.answered && run.result?.approval).map((run) => ({
        id: run.id,
        key: run.runId.split(":")[0],
        sessionId: run.sessionId,
        createdAt: run.updatedAt,
        calls: run.result!.approval!.calls.map((call) => ({
          callId: call.callId,
          toolName: call.toolName,
          riskClasses: call.riskClasses ?? [],
          preview: call.preview ?? JSON.stringify(call.args, null, 2),
          reason: call.reason,
        })),
      }));
    },
    async answer(id, decisions) {
      const run = (await queue.approvals()).find((paused) => paused.id === id);
      if (!run) return "unknown";
      if (run.answered) return "already";
      const calls = run.result?.approval?.calls ?? [];
      // A call left out of the answer is denied, as for a local run.
      const answers = calls.map((call) => {
        const given = decisions.find((d) => d.callId === call.callId);
        const reason = given?.reason?.trim();
        return {
          callId: call.callId,
          approved: given?.approved ?? false,
          reason: !given
            ? "denied: the operator's answer did not name this call"
            : reason
            ? (given.approved ? reason : `denied by the operator: ${reason}`)
            : given.approved
            ? "approved by the operator in odek serve"
            : "denied by the operator in odek serve",
        };
      });
      await queue.answer(run.runId, answers);
      return "answered";
    },
    async approvalState(id) {
      const run = (await queue.approvals()).find((paused) => paused.id === id);
      return !run ? "unknown" : run.answered ? "answered" : "pending";
    },
  };
}
