/**
 * Session journals in PostgreSQL: one row per write of the JSONL journal, in order, and a lock
 * column per session. A durable run's backend also replays: it sees the journal as it was when the
 * run's workflow started (`view`) and skips the writes an earlier execution of the same workflow
 * already made (`dedupe`), so a workflow that the engine runs again from the top writes each
 * record once.
 *
 * @module
 */
import { createHash } from "node:crypto";
// @ts-types="@types/pg"
import type pg from "pg";
import { OdekError } from "../_util/odek_error.ts";
import type { JournalBackend } from "../session/backend_session_store.ts";

/** Options of {@linkcode PgJournalBackend}. */
export interface PgJournalBackendOptions {
  /** Who holds the locks this backend takes (a durable run: its workflow id). */
  owner: string;
  /** Load only a session's first `view` rows (the journal as the workflow first saw it). */
  view?: number;
  /** Skip writes whose record (its times left out) an earlier execution under this scope made. */
  dedupe?: string;
}

/**
 * A {@linkcode JournalBackend} on the `odek.sessions` and `odek.journal` tables
 * (`ensureQueueSchema` creates them).
 *
 * @example Sessions in PostgreSQL (needs a database)
 * ```ts ignore
 * import pg from "pg";
 * import { BackendSessionStore } from "../session/backend_session_store.ts";
 * import { PgJournalBackend } from "./pg_journal_backend.ts";
 * const pool = new pg.Pool({ connectionString: "postgres://odek@127.0.0.1:5432/odek" });
 * const store = new BackendSessionStore(new PgJournalBackend(pool, { owner: "me" }));
 * console.log((await store.list()).length);
 * ```
 */
export class PgJournalBackend implements JournalBackend {
  readonly #pool: pg.Pool;
  readonly #options: PgJournalBackendOptions;
  readonly #seen = new Map<string, number>();

  /**
   * @param pool the database
   * @param options owner, replay view and dedupe scope
   */
  constructor(pool: pg.Pool, options: PgJournalBackendOptions) {
    this.#pool = pool;
    this.#options = options;
  }

  async create(id: string, text: string): Promise<boolean> {
    const key = this.#options.dedupe === undefined ? null : this.#key(text);
    // The session's row and its first record (the meta) in one statement: a worker killed between
    // the two would leave a session that exists but cannot be loaded, which no recovery could open.
    const inserted = await this.#pool.query(
      `WITH s AS (
         INSERT INTO odek.sessions (id, lock_owner, locked_at) VALUES ($1, $2, now())
         ON CONFLICT (id) DO NOTHING RETURNING id)
       INSERT INTO odek.journal (session_id, dedupe, body) SELECT id, $3, $4 FROM s
       RETURNING session_id`,
      [id, this.#options.owner, key, text],
    );
    if (inserted.rowCount === 0) {
      // A replay of the workflow that created it: nothing seen yet, and its meta record is there
      // under this workflow's key (an execution that closed the session, unlocking it, may have
      // died before the workflow ended) or it still holds the lock.
      if (!this.#options.dedupe || this.#options.view !== 0) return false;
      const row = await this.#pool.query(
        `SELECT lock_owner, EXISTS (SELECT 1 FROM odek.journal WHERE session_id = $1 AND dedupe = $2)
           AS mine FROM odek.sessions WHERE id = $1`,
        [id, key],
      );
      if (row.rows[0]?.mine) {
        const relocked = await this.#pool.query(
          `UPDATE odek.sessions SET lock_owner = $2, locked_at = now()
           WHERE id = $1 AND (lock_owner IS NULL OR lock_owner = $2) RETURNING id`,
          [id, this.#options.owner],
        );
        return relocked.rowCount === 1;
      }
      if (row.rows[0]?.lock_owner !== this.#options.owner) return false;
      await this.#insert(id, key, text);
    }
    return true;
  }

  async load(id: string): Promise<string | undefined> {
    const exists = await this.#pool.query(`SELECT 1 FROM odek.sessions WHERE id = $1`, [id]);
    if (exists.rowCount === 0) return undefined;
    const rows = await this.#pool.query(
      `SELECT body FROM odek.journal WHERE session_id = $1 ORDER BY seq` +
        (this.#options.view === undefined ? "" : ` LIMIT ${Math.max(0, this.#options.view)}`),
      [id],
    );
    return rows.rows.map((row) => row.body as string).join("");
  }

  async lock(id: string): Promise<void> {
    const taken = await this.#pool.query(
      `UPDATE odek.sessions SET lock_owner = $2, locked_at = now()
       WHERE id = $1 AND (lock_owner IS NULL OR lock_owner = $2) RETURNING id`,
      [id, this.#options.owner],
    );
    if (taken.rowCount === 1) return;
    const row = await this.#pool.query(
      `SELECT lock_owner, locked_at FROM odek.sessions WHERE id = $1`,
      [id],
    );
    if (row.rowCount === 0) return; // the load that follows says it is not there
    throw new OdekError(
      "SESSION_LOCKED",
      `Session "${id}" is in use by ${row.rows[0].lock_owner} (since ${
        new Date(row.rows[0].locked_at).toISOString()
      }): wait for its run to finish or cancel it.`,
    );
  }

  async unlock(id: string): Promise<void> {
    await this.#pool.query(
      `UPDATE odek.sessions SET lock_owner = NULL, locked_at = NULL WHERE id = $1 AND lock_owner = $2`,
      [id, this.#options.owner],
    );
  }

  async append(id: string, text: string): Promise<void> {
    await this.#insert(id, this.#options.dedupe === undefined ? null : this.#key(text), text);
  }

  /** One journal row, once per dedupe key. */
  async #insert(id: string, key: string | null, text: string): Promise<void> {
    await this.#pool.query(
      `WITH row AS (
         INSERT INTO odek.journal (session_id, dedupe, body) VALUES ($1, $2, $3)
         ON CONFLICT (session_id, dedupe) DO NOTHING RETURNING session_id)
       UPDATE odek.sessions SET updated_at = now() WHERE id IN (SELECT session_id FROM row)`,
      [id, key, text],
    );
  }

  async list(): Promise<{ id: string; text: string; updatedAt: string; locked: boolean }[]> {
    const rows = await this.#pool.query(
      `SELECT s.id, s.updated_at, s.lock_owner IS NOT NULL AS locked,
              coalesce(string_agg(j.body, '' ORDER BY j.seq), '') AS text
       FROM odek.sessions s LEFT JOIN odek.journal j ON j.session_id = s.id
       GROUP BY s.id`,
    );
    return rows.rows.map((row) => ({
      id: row.id,
      text: row.text,
      updatedAt: new Date(row.updated_at).toISOString(),
      locked: row.locked,
    }));
  }

  async delete(id: string): Promise<void> {
    await this.#pool.query(`DELETE FROM odek.sessions WHERE id = $1 AND lock_owner = $2`, [
      id,
      this.#options.owner,
    ]);
  }

  /** The write's identity within the scope: its records without their times, and which repeat. */
  #key(text: string): string {
    const stable = text.split("\n").filter((line) => line.trim() !== "").map((line) => {
      try {
        const { at: _at, createdAt: _created, ...rest } = JSON.parse(line);
        return JSON.stringify(rest);
      } catch {
        return line;
      }
    }).join("\n");
    const digest = createHash("sha256").update(stable).digest("hex");
    const count = this.#seen.get(digest) ?? 0;
    this.#seen.set(digest, count + 1);
    return `${this.#options.dedupe}:${digest}#${count}`;
  }
}
