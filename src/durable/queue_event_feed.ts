/**
 * Reading queued runs' events back from PostgreSQL (`odek.run_events`), for `odek serve --queue`:
 * one run's stream from a `seq` on (replay, then live until the run ends), and every stream's new
 * events. A publisher's write notifies `odek_run_events` on commit (payload: the stream), so a
 * reader reads as soon as rows are visible; a slow poll covers a notification lost while the
 * listening connection was away. Reads go by `seq` per stream, which is gapless, so nothing is
 * skipped or read twice.
 *
 * @module
 */
// @ts-types="@types/pg"
import pg from "pg";
import type { RuntimeEvent } from "../runtime/event_subscription.ts";
import { RUN_EVENTS_CHANNEL } from "./run_event_log.ts";

/** Milliseconds between polls when no notification came. */
const POLL_MS = 1000;
/** Rows read at once. */
const PAGE = 500;

/** Whether an event ends its run's stream. */
export function endsStream(event: RuntimeEvent): boolean {
  return event.type === "run_completed" || event.type === "run_failed";
}

/**
 * The queue's event streams, for readers. Dispose it to close its connections.
 *
 * @example Follow a run's events (needs PostgreSQL)
 * ```ts ignore
 * await using feed = await QueueEventFeed.connect(pool, url);
 * for await (const event of feed.follow("q-…", 0)) console.log(event.id, event.type);
 * ```
 */
export class QueueEventFeed implements AsyncDisposable {
  readonly #pool: pg.Pool;
  readonly #listener: pg.Client;
  readonly #wakers = new Set<(stream: string) => void>();
  #closed = false;

  private constructor(pool: pg.Pool, listener: pg.Client) {
    this.#pool = pool;
    this.#listener = listener;
    listener.on("notification", (message) => {
      for (const wake of [...this.#wakers]) wake(message.payload ?? "");
    });
  }

  /**
   * Connect a listening connection (the pool is the caller's, used for reads).
   *
   * @throws the database's errors
   */
  static async connect(pool: pg.Pool, url: string): Promise<QueueEventFeed> {
    const listener = new pg.Client({ connectionString: url });
    listener.on("error", () => {});
    await listener.connect();
    await listener.query(`LISTEN ${RUN_EVENTS_CHANNEL}`);
    return new QueueEventFeed(pool, listener);
  }

  /** Whether a stream has any event. */
  async exists(stream: string): Promise<boolean> {
    const rows = await this.#pool.query(
      `SELECT 1 FROM odek.run_events WHERE stream = $1 LIMIT 1`,
      [stream],
    );
    return (rows.rowCount ?? 0) > 0;
  }

  /** A stream's events after `seq` `after`, oldest first (at most one page). */
  async read(stream: string, after: number): Promise<RuntimeEvent[]> {
    const rows = await this.#pool.query(
      `SELECT event FROM odek.run_events WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT ${PAGE}`,
      [stream, after],
    );
    return rows.rows.map((row) => JSON.parse(row.event as string) as RuntimeEvent);
  }

  /**
   * Follow one stream: its events after `after`, then each new one, ending after the event that
   * ends the run (or when `signal` aborts, or the feed closes).
   */
  async *follow(stream: string, after: number, signal?: AbortSignal): AsyncGenerator<RuntimeEvent> {
    let last = after;
    while (!this.#closed && !signal?.aborted) {
      const woken = this.#wait(stream, signal);
      try {
        const events = await this.read(stream, last);
        for (const event of events) {
          last = event.seq;
          yield event;
          if (endsStream(event)) return;
        }
        if (events.length < PAGE) await woken.promise;
      } finally {
        woken.stop();
      }
    }
  }

  /**
   * Be given every stream's new events from now on, in each stream's order.
   *
   * @returns stops it
   */
  async tail(onEvent: (event: RuntimeEvent) => void): Promise<() => void> {
    const rows = await this.#pool.query(
      `SELECT stream, max(seq)::bigint AS seq FROM odek.run_events GROUP BY stream`,
    );
    const last = new Map<string, number>(rows.rows.map((r) => [r.stream, Number(r.seq)]));
    let chain = Promise.resolve();
    const pull = (stream: string) => {
      chain = chain.then(async () => {
        for (;;) {
          const events = await this.read(stream, last.get(stream) ?? 0).catch(() => []);
          for (const event of events) {
            last.set(stream, event.seq);
            onEvent(event);
          }
          if (events.length < PAGE) return;
        }
      });
    };
    const poll = setInterval(() => {
      void this.#pool.query(
        `SELECT stream, max(seq)::bigint AS seq FROM odek.run_events
         WHERE created_at > now() - interval '2 minutes' GROUP BY stream`,
      ).then((recent) => {
        for (const row of recent.rows) {
          if (Number(row.seq) > (last.get(row.stream) ?? 0)) pull(row.stream);
        }
      }).catch(() => {});
    }, POLL_MS * 2);
    this.#wakers.add(pull);
    return () => {
      clearInterval(poll);
      this.#wakers.delete(pull);
    };
  }

  #wait(stream: string, signal?: AbortSignal): { promise: Promise<void>; stop(): void } {
    let wake!: () => void;
    const promise = new Promise<void>((resolve) => (wake = resolve));
    const onNotify = (got: string) => got === stream && wake();
    const timer = setTimeout(() => wake(), POLL_MS);
    const onAbort = () => wake();
    this.#wakers.add(onNotify);
    signal?.addEventListener("abort", onAbort, { once: true });
    return {
      promise,
      stop: () => {
        clearTimeout(timer);
        this.#wakers.delete(onNotify);
        signal?.removeEventListener("abort", onAbort);
      },
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#closed = true;
    for (const wake of [...this.#wakers]) wake("");
    await this.#listener.end().catch(() => {});
  }
}
