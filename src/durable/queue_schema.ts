/**
 * odek's own tables next to the engine's (schema `odek`): session journals, the start marks of
 * durable steps, worker leases and queued runs.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import { RUN_EVENTS_SCHEMA } from "./run_event_log.ts";

const SCHEMA = `
CREATE SCHEMA IF NOT EXISTS odek;
CREATE TABLE IF NOT EXISTS odek.sessions (
  id text PRIMARY KEY,
  lock_owner text,
  locked_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS odek.journal (
  seq bigserial PRIMARY KEY,
  session_id text NOT NULL REFERENCES odek.sessions (id) ON DELETE CASCADE,
  dedupe text,
  body text NOT NULL,
  UNIQUE (session_id, dedupe)
);
CREATE INDEX IF NOT EXISTS journal_session ON odek.journal (session_id, seq);
CREATE TABLE IF NOT EXISTS odek.step_marks (
  workflow_id text NOT NULL,
  step text NOT NULL,
  worker_id text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workflow_id, step)
);
CREATE TABLE IF NOT EXISTS odek.leases (
  worker_id text PRIMARY KEY,
  queue text NOT NULL,
  expires_at timestamptz NOT NULL,
  taken_over_by text,
  taken_over_at timestamptz
);
CREATE TABLE IF NOT EXISTS odek.runs (
  run_id text PRIMARY KEY,
  session_id text NOT NULL,
  state text NOT NULL,
  worker_id text,
  request jsonb NOT NULL,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;

/**
 * Create odek's tables if they are missing (under an advisory lock, so workers starting together
 * do not race).
 *
 * @param pool the queue's database
 * @throws the database's error when it cannot be reached or the user may not create tables
 *
 * @example Prepare a database (needs PostgreSQL)
 * ```ts ignore
 * import pg from "pg";
 * import { ensureQueueSchema } from "./queue_schema.ts";
 * await ensureQueueSchema(new pg.Pool({ connectionString: "postgres://odek@127.0.0.1/odek" }));
 * ```
 */
export async function ensureQueueSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(7202205)");
    await client.query(SCHEMA);
    await client.query(RUN_EVENTS_SCHEMA);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
