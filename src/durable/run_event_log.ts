/**
 * A queued run's events in PostgreSQL (`odek.run_events`): one row per event, keyed by the run's
 * event stream and a gapless `seq`, so any `odek serve` connected to the queue serves them as it
 * serves a local run's (design §8.2). A stream is named by the run's first workflow id; the
 * continuations after an approval (`<run>:<approval id>`) append to it, so a watcher sees one run.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";

/** The channel a publisher notifies (payload: the stream) after each write. */
export const RUN_EVENTS_CHANNEL = "odek_run_events";

/** odek.run_events, and the cancel column of odek.runs (run by `ensureQueueSchema`). */
export const RUN_EVENTS_SCHEMA = `
CREATE TABLE IF NOT EXISTS odek.run_events (
  stream text NOT NULL,
  seq bigint NOT NULL,
  workflow_id text NOT NULL,
  segment integer NOT NULL,
  worker_id text NOT NULL,
  event text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream, seq)
);
CREATE INDEX IF NOT EXISTS run_events_workflow ON odek.run_events (workflow_id, segment);
ALTER TABLE odek.runs ADD COLUMN IF NOT EXISTS cancel_reason text;
`;

/**
 * The event stream of a workflow: its first run's id (the part before the first `:`), so a
 * continuation `<run>:<approval id>` publishes to its run's stream.
 *
 * @example
 * ```ts
 * import { eventStreamOf } from "./run_event_log.ts";
 * if (eventStreamOf("q-1:call-7") !== "q-1") throw new Error("stream");
 * ```
 */
export function eventStreamOf(workflowId: string): string {
  const at = workflowId.indexOf(":");
  return at < 0 ? workflowId : workflowId.slice(0, at);
}

/** One stored row, as a publisher reads back what earlier executions wrote. */
export interface StoredSegments {
  /** Rows per segment written by earlier executions of this workflow. */
  counts: Map<number, number>;
  /** The stream's newest `seq` (0: none). */
  lastSeq: number;
}

/**
 * What earlier executions of a workflow published (the rows a replay must not write again).
 *
 * @param pool the queue's database
 * @param workflowId the workflow
 * @param stream its stream ({@linkcode eventStreamOf})
 */
export async function storedSegments(
  pool: pg.Pool,
  workflowId: string,
  stream: string,
): Promise<StoredSegments> {
  const segments = await pool.query(
    `SELECT segment, count(*)::int AS n FROM odek.run_events WHERE workflow_id = $1 GROUP BY segment`,
    [workflowId],
  );
  const last = await pool.query(
    `SELECT coalesce(max(seq), 0)::bigint AS seq FROM odek.run_events WHERE stream = $1`,
    [stream],
  );
  return {
    counts: new Map(segments.rows.map((row) => [row.segment as number, row.n as number])),
    lastSeq: Number(last.rows[0].seq),
  };
}

/** A row to write. */
export interface EventRow {
  seq: number;
  segment: number;
  event: string;
}

/**
 * Write rows of one stream in one statement and notify the watchers (on commit).
 *
 * @returns how many rows were new (fewer than given: another execution wrote those `seq`s)
 */
export async function writeEventRows(
  pool: pg.Pool,
  stream: string,
  workflowId: string,
  workerId: string,
  rows: readonly EventRow[],
): Promise<number> {
  const result = await pool.query(
    `WITH ins AS (
       INSERT INTO odek.run_events (stream, seq, workflow_id, segment, worker_id, event)
       SELECT $1, t.seq, $2, t.segment, $3, t.event
       FROM unnest($4::bigint[], $5::int[], $6::text[]) AS t(seq, segment, event)
       ON CONFLICT DO NOTHING RETURNING 1)
     SELECT (SELECT count(*)::int FROM ins) AS n, pg_notify($7, $1)`,
    [
      stream,
      workflowId,
      workerId,
      rows.map((row) => row.seq),
      rows.map((row) => row.segment),
      rows.map((row) => row.event),
      RUN_EVENTS_CHANNEL,
    ],
  );
  return result.rows[0].n as number;
}
