/**
 * The events of one run: numbered, kept in memory for replay, and fanned out to subscribers
 * (design §8.2).
 *
 * @module
 */
import type { RunEvent } from "../loop/run_event.ts";
import { EventHub, type SubscribeOptions } from "./event_hub.ts";
import { EventSubscription, type RuntimeEvent } from "./event_subscription.ts";

/** Events of one run kept for replay. @default 10_000 */
export const DEFAULT_RUN_HISTORY = 10_000;

/**
 * Options of {@linkcode RunEventLog.subscribe}.
 *
 * @example Resume after the last event seen
 * ```ts
 * import type { RunSubscribeOptions } from "./run_event_log.ts";
 * const lastSeen = 41;
 * const options: RunSubscribeOptions = { after: lastSeen, bufferSize: 1024 };
 * if (options.after !== 41) throw new Error("after");
 * ```
 */
export interface RunSubscribeOptions extends SubscribeOptions {
  /**
   * Replay the events after this `seq` first (0: from the start), then follow live. Events no
   * longer in memory are reported as one `events_dropped` marker. @default 0
   */
  after?: number;
}

/**
 * One run's events. {@linkcode RunEventLog.append} gives each event the next `seq` (from 1) and
 * its id `<run_id>:<seq>`, keeps the newest `historyLimit` for replay, hands it to `forward` (the
 * runtime's stream of all runs) and to every subscriber. Nothing here waits for a consumer.
 *
 * @example Replay after the first event
 * ```ts
 * import { RunEventLog } from "./run_event_log.ts";
 * import { makeRunEvent } from "../loop/make_run_event.ts";
 * const log = new RunEventLog("r1");
 * log.append(makeRunEvent("session_saved", { message_count: 1 }, { runId: "r1" }));
 * log.append(makeRunEvent("session_saved", { message_count: 2 }, { runId: "r1" }));
 * log.end();
 * const ids = [];
 * for await (const event of log.subscribe({ after: 1 })) ids.push(event.id);
 * if (ids.join() !== "r1:2") throw new Error(ids.join());
 * ```
 */
export class RunEventLog {
  readonly #runId: string;
  readonly #limit: number;
  readonly #forward: ((event: RuntimeEvent) => void) | undefined;
  readonly #hub = new EventHub();
  readonly #history: RuntimeEvent[] = [];
  #seq = 0;
  #ended = false;

  /**
   * @param runId the run's id
   * @param options `historyLimit` (events kept for replay, default
   *   {@linkcode DEFAULT_RUN_HISTORY}) and `forward` (also receives every numbered event)
   */
  constructor(
    runId: string,
    options: { historyLimit?: number; forward?: (event: RuntimeEvent) => void } = {},
  ) {
    this.#runId = runId;
    this.#limit = options.historyLimit ?? DEFAULT_RUN_HISTORY;
    this.#forward = options.forward;
  }

  /** The `seq` of the newest event (0 before the first). */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Whether the run has ended (no more events). */
  get ended(): boolean {
    return this.#ended;
  }

  /** Number and deliver one event; ignored after {@linkcode RunEventLog.end}. */
  append(event: RunEvent): RuntimeEvent | undefined {
    if (this.#ended) return undefined;
    const seq = ++this.#seq;
    const numbered = { ...event, seq, id: `${this.#runId}:${seq}` } as RuntimeEvent;
    this.#history.push(numbered);
    if (this.#history.length > this.#limit) this.#history.shift();
    try {
      this.#forward?.(numbered);
    } catch {
      // A failing consumer must not break the run.
    }
    this.#hub.publish(numbered);
    return numbered;
  }

  /**
   * Follow the run: the events after `after` that are still in memory, then the live ones. The
   * stream ends after the run's last event.
   *
   * @throws {RangeError} when `after` is not a non-negative integer, or for a bad `bufferSize`
   */
  subscribe(options: RunSubscribeOptions = {}): EventSubscription {
    const after = options.after ?? 0;
    if (!Number.isInteger(after) || after < 0) {
      throw new RangeError(`after must be a non-negative integer (a seq), got ${after}`);
    }
    // An ended run replays into a stream of its own (the hub's would end before the replay).
    const subscription = this.#ended
      ? new EventSubscription({ bufferSize: options.bufferSize })
      : this.#hub.subscribe({ bufferSize: options.bufferSize });
    const first = this.#history[0]?.seq ?? this.#seq + 1;
    if (after + 1 < first && after < this.#seq) {
      subscription.markDropped(
        this.#runId,
        this.#history[0]?.session_id,
        after + 1,
        Math.min(first - 1, this.#seq),
      );
    }
    for (const event of this.#history) if (event.seq > after) subscription.push(event);
    if (this.#ended) subscription.end();
    return subscription;
  }

  /** The run is over: every stream ends once drained. Idempotent. */
  end(): void {
    this.#ended = true;
    this.#hub.end();
  }
}
