/**
 * A worker's lease row, and the takeover of dead workers' runs: every third of the lease the
 * worker renews its row, then claims at most one expired lease of another worker (a row lock with
 * `SKIP LOCKED`, so two live workers never claim the same one) and asks the engine to recover
 * that worker's pending workflows onto the queue, where any live worker picks them up.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import { DBOS } from "@dbos-inc/dbos-sdk";

/** Options of {@linkcode WorkerLease}. */
export interface WorkerLeaseOptions {
  /** This worker (the engine's executor id). */
  workerId: string;
  /** The queue it serves. */
  queue: string;
  /** How long the lease lasts without a renewal, in milliseconds. */
  leaseMs: number;
  /** Told about takeovers and database errors. */
  log: (line: string) => void;
}

/**
 * The lease of one worker.
 *
 * @example Hold a lease (needs PostgreSQL and a launched engine)
 * ```ts ignore
 * const lease = new WorkerLease(pool, { workerId: "w1", queue: "odek-runs", leaseMs: 5000, log: console.log });
 * await lease.start();
 * await lease.stop();
 * ```
 */
export class WorkerLease {
  readonly #pool: pg.Pool;
  readonly #options: WorkerLeaseOptions;
  #timer: ReturnType<typeof setInterval> | undefined;
  #tick: Promise<void> = Promise.resolve();

  /**
   * @param pool the queue's database
   * @param options worker, queue, lease length, log
   */
  constructor(pool: pg.Pool, options: WorkerLeaseOptions) {
    this.#pool = pool;
    this.#options = options;
  }

  /** Take the lease and start renewing it. */
  async start(): Promise<void> {
    await this.#renew();
    const every = Math.max(100, Math.floor(this.#options.leaseMs / 3));
    this.#timer = setInterval(() => {
      this.#tick = this.#tick.then(() => this.#round()).catch((error) =>
        this.#options.log(`lease: ${error instanceof Error ? error.message : String(error)}`)
      );
    }, every);
  }

  /** Stop renewing and let the lease expire now, so another worker takes the runs over. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#tick;
    await this.#pool.query(`UPDATE odek.leases SET expires_at = now() WHERE worker_id = $1`, [
      this.#options.workerId,
    ]).catch(() => {});
  }

  async #round(): Promise<void> {
    await this.#renew();
    const dead = await this.#claim();
    if (dead === undefined) return;
    // The engine's recovery of another executor's workflows: back onto their queue, where any
    // live worker picks them up and replays them from their last recorded step.
    const pending = await DBOS.listWorkflows({ status: "PENDING", executorId: dead });
    const ids = pending.map((workflow) => workflow.workflowID);
    if (ids.length > 0) await DBOS.resumeWorkflows(ids, { queueName: this.#options.queue });
    this.#options.log(
      `worker ${this.#options.workerId}: took over ${dead} (${ids.length} runs back on the queue)`,
    );
  }

  async #renew(): Promise<void> {
    await this.#pool.query(
      `INSERT INTO odek.leases (worker_id, queue, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3))
       ON CONFLICT (worker_id) DO UPDATE SET expires_at = EXCLUDED.expires_at`,
      [this.#options.workerId, this.#options.queue, this.#options.leaseMs / 1000],
    );
  }

  /** Claim one expired lease of another worker of this queue; its worker id. */
  async #claim(): Promise<string | undefined> {
    const claimed = await this.#pool.query(
      `UPDATE odek.leases SET taken_over_by = $1, taken_over_at = now()
       WHERE worker_id = (
         SELECT worker_id FROM odek.leases
         WHERE queue = $2 AND worker_id <> $1 AND taken_over_by IS NULL AND expires_at < now()
         ORDER BY expires_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING worker_id`,
      [this.#options.workerId, this.#options.queue],
    );
    return claimed.rows[0]?.worker_id;
  }
}
