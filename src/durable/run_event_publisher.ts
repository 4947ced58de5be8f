/**
 * Publishing a durable run's events to PostgreSQL without a duplicate, a gap or a reordering,
 * across replays. The run's events are cut into **segments** at every step's start and end (the
 * durable step runner calls {@linkcode RunEventPublisher.boundary}, which first waits until every
 * earlier event is written). Segment numbers are the same in every execution of the workflow (the
 * loop takes the same steps in the same order: each completed one's result comes back from the
 * engine). A replaying execution therefore:
 *
 * - writes nothing of a segment before the last one an earlier execution wrote to (those are
 *   complete: the earlier execution waited for them before its next boundary);
 * - of that last segment, when it lies between steps (its events follow from the recorded step
 *   results, the same each time), skips as many events as were written, and writes the rest;
 *   when it lies inside a step (a step that was going: its text deltas, its `tool_running`
 *   beats), writes what this execution's step emits (a model call asked again streams again);
 * - writes every later segment.
 *
 * Each written event is renumbered in its stream (`run_id` = the stream, `seq` gapless,
 * `id` = `<stream>:<seq>`).
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import type { RunEvent } from "../loop/run_event.ts";
import type { RuntimeEvent } from "../runtime/event_subscription.ts";
import { type EventRow, storedSegments, writeEventRows } from "./run_event_log.ts";

/** What a {@linkcode RunEventPublisher} publishes for. */
export interface RunEventPublisherInit {
  pool: pg.Pool;
  /** The workflow (its execution) publishing. */
  workflowId: string;
  /** The stream it publishes to. */
  stream: string;
  workerId: string;
  /** Events not to publish (decided the same way in every execution). @default none */
  skip?: (event: RuntimeEvent) => boolean;
  /** Told about write failures and dropped events. */
  log?: (line: string) => void;
}

/**
 * One execution's publisher. {@linkcode RunEventPublisher.follow} the runtime's events, call
 * {@linkcode RunEventPublisher.boundary} at each step's start and end, and
 * {@linkcode RunEventPublisher.flush} before the workflow ends.
 *
 * @example Publish a run's events (needs PostgreSQL, inside a workflow)
 * ```ts ignore
 * const events = await RunEventPublisher.open({ pool, workflowId, stream, workerId });
 * events.follow(runtime.events({ bufferSize: 1 << 20 }), () => host.activeRun?.lastSeq ?? 0);
 * ```
 */
export class RunEventPublisher {
  readonly #init: RunEventPublisherInit;
  readonly #stored: Map<number, number>;
  readonly #last: number;
  readonly #boundaries: number[] = [];
  readonly #counts = new Map<number, number>();
  readonly #pending: EventRow[] = [];
  readonly #waiters: (() => void)[] = [];
  #nextSeq: number;
  #seen = 0;
  #ended = false;
  #writing: Promise<void> = Promise.resolve();
  #lastSeq: () => number = () => 0;

  private constructor(init: RunEventPublisherInit, stored: Map<number, number>, last: number) {
    this.#init = init;
    this.#stored = stored;
    this.#last = stored.size ? Math.max(...stored.keys()) : -1;
    this.#nextSeq = last + 1;
  }

  /** Read what earlier executions wrote, and make the publisher. */
  static async open(init: RunEventPublisherInit): Promise<RunEventPublisher> {
    const { counts, lastSeq } = await storedSegments(init.pool, init.workflowId, init.stream);
    return new RunEventPublisher(init, counts, lastSeq);
  }

  /** The `seq` the next written event gets in its stream. */
  get nextSeq(): number {
    return this.#nextSeq;
  }

  /**
   * Consume the run's events (a subscription made before the run started, large enough never to
   * drop); `lastSeq` tells the newest runtime `seq` so far (the run's `lastSeq`).
   */
  follow(events: AsyncIterable<RuntimeEvent>, lastSeq: () => number): void {
    this.#lastSeq = lastSeq;
    void (async () => {
      try {
        for await (const event of events) this.#take(event);
      } finally {
        this.#ended = true;
        this.#wake();
      }
    })();
  }

  /** A step starts or ends: wait until every event so far is written, then start a segment. */
  async boundary(): Promise<void> {
    const at = this.#lastSeq();
    this.#boundaries.push(at);
    await this.flush(at);
  }

  /** Wait until every event up to runtime `seq` `upTo` (default: the newest) is written. */
  async flush(upTo: number = this.#lastSeq()): Promise<void> {
    while (this.#seen < upTo && !this.#ended) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    await this.#writing;
  }

  /**
   * Publish an event the runtime did not emit (after every earlier one), in the current segment:
   * the end of a call a step answered `interrupted` without running it.
   */
  async inject(event: RunEvent): Promise<void> {
    await this.flush();
    const segment = this.#boundaries.length;
    const seq = this.#nextSeq++;
    const { stream } = this.#init;
    const numbered = { ...event, run_id: stream, seq, id: `${stream}:${seq}` };
    this.#pending.push({ seq, segment, event: JSON.stringify(numbered) });
    this.#schedule();
    await this.#writing;
  }

  #take(event: RuntimeEvent): void {
    if (event.type === "events_dropped") {
      const { from, to } = event.data as { from: number; to: number };
      this.#init.log?.(`run events ${from}–${to} were dropped before publishing`);
      this.#seen = Math.max(this.#seen, to);
      this.#wake();
      return;
    }
    this.#seen = Math.max(this.#seen, event.seq);
    const segment = this.#boundaries.filter((at) => at < event.seq).length;
    if (!this.#init.skip?.(event) && this.#fresh(segment)) {
      const seq = this.#nextSeq++;
      const { stream } = this.#init;
      const renumbered = { ...event, run_id: stream, seq, id: `${stream}:${seq}` };
      this.#pending.push({ seq, segment, event: JSON.stringify(renumbered) });
      this.#schedule();
    }
    this.#wake();
  }

  /** Whether this execution's next event of `segment` is one no earlier execution wrote. */
  #fresh(segment: number): boolean {
    if (segment < this.#last) return false;
    if (segment > this.#last || segment % 2 === 1) return true;
    const n = (this.#counts.get(segment) ?? 0) + 1;
    this.#counts.set(segment, n);
    return n > (this.#stored.get(segment) ?? 0);
  }

  #schedule(): void {
    this.#writing = this.#writing.then(async () => {
      const rows = this.#pending.splice(0);
      if (rows.length === 0) return;
      const { pool, stream, workflowId, workerId } = this.#init;
      for (let attempt = 1;; attempt++) {
        try {
          const written = await writeEventRows(pool, stream, workflowId, workerId, rows);
          if (written < rows.length) {
            this.#init.log?.(`run ${workflowId}: ${rows.length - written} events existed already`);
          }
          return;
        } catch (error) {
          if (attempt === 3) {
            this.#init.log?.(
              `run ${workflowId}: events not published: ${(error as Error).message}`,
            );
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    });
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
