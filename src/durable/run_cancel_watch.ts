/**
 * Cancelling a queued run on the worker that runs it: `QueueClient.cancel` writes the reason in
 * the run's `odek.runs` row (and cancels its workflow in the engine); the worker polls that row
 * while the run goes and cancels the runtime's run (`Run.cancel`: the model request is aborted,
 * running tool calls are killed, the outcome is `interrupted` with the reason).
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";

/** Milliseconds between two looks at the row. */
export const CANCEL_POLL_MS = 300;

/**
 * Watch one run's row for a cancel request.
 *
 * @param pool the queue's database
 * @param runId the run's id (its workflow id)
 * @param cancel called once with the reason
 * @returns stops the watch (dispose it when the run ended)
 *
 * @example Watch a run (needs PostgreSQL)
 * ```ts ignore
 * using _watch = watchCancel(pool, "q-1", (reason) => run.cancel(reason));
 * await run.result;
 * ```
 */
export function watchCancel(
  pool: pg.Pool,
  runId: string,
  cancel: (reason: string) => void,
): Disposable {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const look = async () => {
    if (stopped) return;
    try {
      const rows = await pool.query(`SELECT cancel_reason FROM odek.runs WHERE run_id = $1`, [
        runId,
      ]);
      const reason = rows.rows[0]?.cancel_reason as string | null | undefined;
      if (reason && !stopped) {
        stopped = true;
        cancel(`cancelled: ${reason}`);
        return;
      }
    } catch {
      // the database is away for a moment: look again
    }
    if (!stopped) timer = setTimeout(look, CANCEL_POLL_MS);
  };
  timer = setTimeout(look, 0);
  return {
    [Symbol.dispose]() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Whether a run was cancelled (its row has a cancel reason): a workflow that finds this at its
 * start ends at once, without running.
 */
export async function cancelReasonOf(pool: pg.Pool, runId: string): Promise<string | undefined> {
  const rows = await pool.query(`SELECT cancel_reason FROM odek.runs WHERE run_id = $1`, [runId]);
  return (rows.rows[0]?.cancel_reason as string | null | undefined) ?? undefined;
}

/**
 * Record how a cancelled run ended (its workflow, cancelled in the engine, records no more
 * steps).
 *
 * @returns false when the run was not cancelled (its workflow records its end itself)
 */
export async function recordCancelled(
  pool: pg.Pool,
  result: { runId: string; outcome: string },
): Promise<boolean> {
  const rows = await pool.query(
    `UPDATE odek.runs SET state = $2, result = $3, updated_at = now()
     WHERE run_id = $1 AND cancel_reason IS NOT NULL RETURNING run_id`,
    [result.runId, result.outcome, JSON.stringify(result)],
  );
  return (rows.rowCount ?? 0) > 0;
}
