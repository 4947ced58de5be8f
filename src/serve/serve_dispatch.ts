/**
 * Runs that go elsewhere: with a dispatcher (`odek serve --queue`), `ServeRuns` hands each run to
 * it instead of running it on a session host of its own, and records how it ended.
 *
 * @module
 */
import type { ServeRunGit, ServeRunRecord, ServeRunState } from "./run_records.ts";

/** How a dispatched run ended. */
export interface DispatchedEnd {
  /** The end state (`completed`, `failed`, …). */
  state: Exclude<ServeRunState, "queued" | "running">;
  /** The final text, or the error's message. */
  summary: string;
  /** The error code of a run that did not complete. */
  errorCode?: string;
  /** A git run's branch and diff. */
  git?: Omit<ServeRunGit, "repository" | "ref">;
  /** The session host's warnings where the run ran (a worker's). */
  warnings?: string[];
}

/**
 * Run one serve run elsewhere (a durable queue) and resolve when it ended. Its id is the
 * record's `key` (stable across a server restart, so dispatching it again is idempotent).
 *
 * @example A dispatcher that completes every run at once
 * ```ts
 * import type { ServeRunDispatch } from "./serve_dispatch.ts";
 * const dispatch: ServeRunDispatch = (record) =>
 *   Promise.resolve({ state: "completed", summary: `ran ${record.key}` });
 * const end = await dispatch({ key: "q-1", sessionId: "s", state: "queued", createdAt: "", workspace: "/w" });
 * if (end.summary !== "ran q-1") throw new Error(end.summary);
 * ```
 */
export type ServeRunDispatch = (record: ServeRunRecord) => Promise<DispatchedEnd>;

/**
 * Mark a record going, dispatch it, and mark it ended (failed when the dispatcher throws).
 *
 * @param record the run (updated in place)
 * @param dispatch where it goes
 * @param save persists the record after each change
 */
export async function dispatchRun(
  record: ServeRunRecord,
  dispatch: ServeRunDispatch,
  save: (record: ServeRunRecord) => Promise<void>,
): Promise<void> {
  record.state = "running";
  record.runId = record.key;
  record.startedAt = new Date().toISOString();
  delete record.queuedReason;
  await save(record);
  let end: DispatchedEnd;
  try {
    end = await dispatch(record);
  } catch (error) {
    end = {
      state: "failed",
      summary: error instanceof Error ? error.message : String(error),
      errorCode: "FAILED",
    };
  }
  record.task = undefined;
  record.state = end.state;
  record.summary = end.summary;
  record.endedAt = new Date().toISOString();
  if (end.errorCode) record.errorCode = end.errorCode;
  if (end.git && record.git) record.git = { ...record.git, ...end.git };
  if (end.warnings?.length) record.warnings = end.warnings;
  await save(record).catch(() => {});
}
