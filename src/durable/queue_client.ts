/**
 * Putting runs on the queue and reading how they went, from any process that reaches the
 * database (`odek serve --queue`, tests, scripts).
 *
 * @module
 */
import { DBOS, DBOSClient } from "@dbos-inc/dbos-sdk";
// @ts-types="@types/pg"
import pg from "pg";
import { OdekError } from "../_util/odek_error.ts";
import { BackendSessionStore } from "../session/backend_session_store.ts";
import type { SessionStore } from "../session/session_store.ts";
import { PgJournalBackend } from "./pg_journal_backend.ts";
import { QueueEventFeed } from "./queue_event_feed.ts";
import { approvalKey } from "./queue_approvals.ts";
import { ensureQueueSchema } from "./queue_schema.ts";
import { DEFAULT_QUEUE, DURABLE_APP, DURABLE_VERSION, RUN_WORKFLOW } from "./queue_names.ts";
import {
  type QueuedRun,
  type QueuedRunResult,
  queuedRunResult,
  QueuedRunSchema,
} from "./queued_run.ts";

/** A run's row: its state (`queued`, `running`, or its outcome) and, once ended, its result. */
export interface QueuedRunStatus {
  /** The run's id. */
  runId: string;
  /** Its session. */
  sessionId: string;
  /** `queued`, `running`, or the outcome type. */
  state: string;
  /** The worker that runs or ran it. */
  workerId: string | undefined;
  /** The result, once it ended. */
  result: QueuedRunResult | undefined;
  /** Why it was cancelled, when it was. */
  cancelReason?: string;
}

/**
 * A client of one queue. Dispose it to close its connections.
 *
 * @example Enqueue a run and wait for it (needs PostgreSQL and a worker)
 * ```ts ignore
 * await using queue = await QueueClient.connect("postgres://odek@127.0.0.1:5432/odek");
 * await queue.enqueue({ runId: "r1", sessionId: "s1", task: "say hi", workspace: "/srv/ws" });
 * console.log((await queue.wait("r1")).outcome);
 * ```
 */
export class QueueClient implements AsyncDisposable {
  readonly #pool: pg.Pool;
  readonly #client: DBOSClient;
  readonly #queue: string;
  readonly #url: string;
  #feed: Promise<QueueEventFeed> | undefined;
  /** The queue's sessions (read-only use: list, show, export). */
  readonly sessions: SessionStore;

  private constructor(pool: pg.Pool, client: DBOSClient, queue: string, url: string) {
    this.#pool = pool;
    this.#url = url;
    this.#client = client;
    this.#queue = queue;
    this.sessions = new BackendSessionStore(
      new PgJournalBackend(pool, { owner: `client-${crypto.randomUUID()}` }),
      { label: "PostgreSQL" },
    );
  }

  /**
   * Connect to the queue's database (creating odek's tables if missing).
   *
   * @param url `postgres://…`
   * @param queue the queue's name @default "odek-runs"
   * @throws the database's errors
   */
  static async connect(url: string, queue: string = DEFAULT_QUEUE): Promise<QueueClient> {
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on("error", () => {});
    await ensureQueueSchema(pool);
    // The engine's tables, in case no worker created them yet.
    await DBOS.migrate(url);
    const client = await DBOSClient.create({
      systemDatabaseUrl: url,
      applicationName: DURABLE_APP,
    });
    return new QueueClient(pool, client, queue, url);
  }

  /**
   * Put a run on the queue; idempotent by `runId` (a second enqueue of the same id is a no-op).
   *
   * @param run the run
   * @throws {ZodError} for a malformed run; the database's errors
   */
  async enqueue(run: QueuedRun): Promise<void> {
    const request = QueuedRunSchema.parse(run);
    await this.#pool.query(
      `INSERT INTO odek.runs (run_id, session_id, state, request) VALUES ($1, $2, 'queued', $3)
       ON CONFLICT (run_id) DO NOTHING`,
      [request.runId, request.sessionId, JSON.stringify(request)],
    );
    await this.#client.enqueue({
      queueName: this.#queue,
      workflowName: RUN_WORKFLOW,
      workflowID: request.runId,
      appVersion: DURABLE_VERSION,
    }, request);
  }

  /**
   * Answer the approval a run paused at: starts the continuation `<run>:<approval id>` (idempotent:
   * answering twice starts it once), which asks nothing it was given and runs on.
   *
   * @param runId the run that paused
   * @param answers one per asking call of the paused batch
   * @returns the continuation's run id
   * @throws {OdekError} `USAGE` when the run is not waiting for an approval
   */
  async answer(
    runId: string,
    answers: { callId: string; approved: boolean; reason?: string }[],
  ): Promise<string> {
    const status = await this.status(runId);
    const approval = status?.result?.approval;
    if (!status || status.state !== "awaiting_approval" || !approval) {
      throw new OdekError("USAGE", `Run ${runId} is not waiting for an approval.`);
    }
    const rows = await this.#pool.query(`SELECT request FROM odek.runs WHERE run_id = $1`, [runId]);
    const request = QueuedRunSchema.parse(rows.rows[0].request);
    const next = `${runId}:${approval.id}`;
    await this.enqueue({
      runId: next,
      sessionId: request.sessionId,
      ...(request.workspace !== undefined ? { workspace: request.workspace } : {}),
      ...(request.git ? { git: request.git } : {}),
      approvals: answers,
    });
    return next;
  }

  /**
   * A run's state, undefined when there is no such run.
   *
   * @throws {OdekError} `QUEUE_RESULT_INVALID` when its recorded result is not a run's result
   */
  async status(runId: string): Promise<QueuedRunStatus | undefined> {
    const rows = await this.#pool.query(
      `SELECT run_id, session_id, state, worker_id, result, cancel_reason FROM odek.runs
       WHERE run_id = $1`,
      [runId],
    );
    const row = rows.rows[0];
    if (!row) return undefined;
    return {
      runId: row.run_id,
      sessionId: row.session_id,
      state: row.state,
      workerId: row.worker_id ?? undefined,
      result: row.result == null ? undefined : queuedRunResult(row.result, row.run_id),
      ...(row.cancel_reason ? { cancelReason: row.cancel_reason } : {}),
    };
  }

  /**
   * Wait until a run's workflow ends.
   *
   * @param runId the run
   * @returns its result
   * @throws the workflow's error when it failed in the engine; {@linkcode OdekError}
   *   `QUEUE_RESULT_INVALID` when what it returned is not a run's result
   */
  async wait(runId: string): Promise<QueuedRunResult> {
    return queuedRunResult(await this.#client.retrieveWorkflow(runId).getResult(), runId);
  }

  /** The queue's event streams (one listening connection, made on first use). */
  events(): Promise<QueueEventFeed> {
    this.#feed ??= QueueEventFeed.connect(this.#pool, this.#url);
    return this.#feed;
  }

  /**
   * Cancel a run: the newest workflow of its chain (the run or its latest continuation) gets the
   * reason in its row, which the worker running it watches (it stops the run: `interrupted`),
   * and is cancelled in the engine, so no recovery takes it up again. A queued run, or one
   * waiting for approval, ends here and now.
   *
   * @param runId the run (its first workflow's id)
   * @returns the workflow cancelled, or undefined when the chain has ended or is unknown
   */
  async cancel(runId: string, reason: string): Promise<string | undefined> {
    const rows = await this.#pool.query(
      `UPDATE odek.runs SET cancel_reason = $2, updated_at = now() WHERE run_id = (
         SELECT run_id FROM odek.runs WHERE run_id = $1 OR starts_with(run_id, $1 || ':')
         ORDER BY length(run_id) DESC LIMIT 1)
       AND state IN ('queued', 'running', 'awaiting_approval') AND cancel_reason IS NULL
       RETURNING run_id, session_id, state, worker_id`,
      [runId, reason],
    );
    const row = rows.rows[0];
    if (!row) return undefined;
    await this.#client.cancelWorkflow(row.run_id);
    if (row.state !== "running") await this.settleCancelled(row.run_id);
    return row.run_id as string;
  }

  /**
   * Record a cancelled run's end when no worker will (it was not going, or its worker died).
   *
   * @returns false when its end was recorded already
   */
  async settleCancelled(runId: string): Promise<boolean> {
    const rows = await this.#pool.query(
      `UPDATE odek.runs SET state = 'interrupted', updated_at = now(),
         result = jsonb_build_object('runId', run_id, 'sessionId', session_id,
           'outcome', 'interrupted', 'text', 'cancelled: ' || cancel_reason,
           'workerId', coalesce(worker_id, ''))
       WHERE run_id = $1 AND cancel_reason IS NOT NULL
         AND state IN ('queued', 'running', 'awaiting_approval') RETURNING run_id`,
      [runId],
    );
    return (rows.rowCount ?? 0) > 0;
  }

  /**
   * The approvals runs paused at, each with its REST id ({@linkcode approvalKey}); `answered`:
   * its continuation exists.
   *
   * @param options `pending`: only those not answered yet (what serve polls)
   */
  async approvals(options: { pending?: boolean } = {}): Promise<
    (QueuedRunStatus & { id: string; answered: boolean; updatedAt: string })[]
  > {
    const rows = await this.#pool.query(
      `SELECT * FROM (
         SELECT r.run_id, r.session_id, r.state, r.worker_id, r.result, r.updated_at,
           EXISTS (SELECT 1 FROM odek.runs c
                   WHERE c.run_id = r.run_id || ':' || (r.result -> 'approval' ->> 'id')) AS answered
         FROM odek.runs r WHERE r.state = 'awaiting_approval' AND r.cancel_reason IS NULL) a
       WHERE NOT ($1 AND answered) ORDER BY updated_at`,
      [options.pending === true],
    );
    return await Promise.all(rows.rows.map(async (row) => ({
      runId: row.run_id,
      sessionId: row.session_id,
      state: row.state,
      workerId: row.worker_id ?? undefined,
      result: row.result == null ? undefined : queuedRunResult(row.result, row.run_id),
      id: await approvalKey(row.run_id, row.result?.approval?.id ?? ""),
      answered: row.answered === true,
      updatedAt: new Date(row.updated_at).toISOString(),
    })));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#feed) await (await this.#feed.catch(() => undefined))?.[Symbol.asyncDispose]();
    await this.#client.destroy();
    await this.#pool.end();
  }
}
