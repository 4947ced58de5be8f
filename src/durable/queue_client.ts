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
import { ensureQueueSchema } from "./queue_schema.ts";
import { DEFAULT_QUEUE, DURABLE_APP, DURABLE_VERSION, RUN_WORKFLOW } from "./queue_names.ts";
import type { QueuedRun, QueuedRunResult } from "./queued_run.ts";
import { QueuedRunSchema } from "./queued_run.ts";

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
  /** The queue's sessions (read-only use: list, show, export). */
  readonly sessions: SessionStore;

  private constructor(pool: pg.Pool, client: DBOSClient, queue: string) {
    this.#pool = pool;
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
    return new QueueClient(pool, client, queue);
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

  /** A run's state, undefined when there is no such run. */
  async status(runId: string): Promise<QueuedRunStatus | undefined> {
    const rows = await this.#pool.query(
      `SELECT run_id, session_id, state, worker_id, result FROM odek.runs WHERE run_id = $1`,
      [runId],
    );
    const row = rows.rows[0];
    if (!row) return undefined;
    return {
      runId: row.run_id,
      sessionId: row.session_id,
      state: row.state,
      workerId: row.worker_id ?? undefined,
      result: row.result ?? undefined,
    };
  }

  /**
   * Wait until a run's workflow ends.
   *
   * @param runId the run
   * @returns its result
   * @throws the workflow's error when it failed in the engine
   */
  async wait(runId: string): Promise<QueuedRunResult> {
    return await this.#client.retrieveWorkflow<QueuedRunResult>(runId).getResult();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#client.destroy();
    await this.#pool.end();
  }
}
