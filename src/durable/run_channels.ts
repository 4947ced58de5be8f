/**
 * What a durable run shares with the `serve` instances watching it, while it goes on a worker:
 * its events (published to `odek.run_events`, {@linkcode RunEventPublisher}) and cancel requests
 * (`odek.runs.cancel_reason`, {@linkcode watchCancel}). The worker's workflow makes one per
 * execution and calls it at the run's start, at each step's boundary and at its end.
 *
 * @module
 */
// @ts-types="@types/pg"
import type pg from "pg";
import { makeRunEvent } from "../loop/make_run_event.ts";
import type { StepInfo } from "../loop/step_runner.ts";
import type { RuntimeEvent } from "../runtime/event_subscription.ts";
import { interruptedResult } from "../session/repair_transcript.ts";
import type { Run } from "../runtime/run.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { PausingApprover } from "./pausing_approver.ts";
import { watchCancel } from "./run_cancel_watch.ts";
import { eventStreamOf } from "./run_event_log.ts";
import { RunEventPublisher } from "./run_event_publisher.ts";

/** Events one execution may hold before publishing (far above any run's). */
const FEED_BUFFER = 1 << 20;

/** A run's channels to its watchers, for one execution of its workflow. */
export class RunChannels {
  readonly #pool: pg.Pool;
  readonly #runId: string;
  readonly #events: RunEventPublisher;
  #approver: PausingApprover | undefined;
  #feed: { close(): void } | undefined;
  #cancelled = false;

  private constructor(pool: pg.Pool, runId: string, events: RunEventPublisher) {
    this.#pool = pool;
    this.#runId = runId;
    this.#events = events;
  }

  /**
   * Open the channels of one execution.
   *
   * @param init the database, the workflow (= the run's id), the worker; `continuation`: the run
   *   continues a paused one (its `run_started` is not shown: watchers see one run)
   */
  static async open(init: {
    pool: pg.Pool;
    workflowId: string;
    workerId: string;
    continuation: boolean;
    log?: (line: string) => void;
  }): Promise<RunChannels> {
    let skip: (event: RuntimeEvent) => boolean = () => false;
    const events = await RunEventPublisher.open({
      pool: init.pool,
      workflowId: init.workflowId,
      stream: eventStreamOf(init.workflowId),
      workerId: init.workerId,
      ...(init.log ? { log: init.log } : {}),
      skip: (event) => skip(event),
    });
    const channels = new RunChannels(init.pool, init.workflowId, events);
    skip = (event) => channels.#skip(event, init.continuation);
    return channels;
  }

  /** Follow the runtime's events (before the session opens). */
  listen(runtime: Runtime): void {
    const feed = runtime.events({ bufferSize: FEED_BUFFER });
    this.#feed = feed;
    // The newest seq as it is emitted (the consumer reads later): a step's boundary falls there.
    let emitted = 0;
    const push = feed.push.bind(feed);
    feed.push = (event: RuntimeEvent) => {
      if (event.seq > emitted) emitted = event.seq;
      push(event);
    };
    this.#events.follow(feed, () => emitted);
  }

  /** A step starts or ends (the durable step runner's `boundary`). */
  boundary(): Promise<void> {
    return this.#events.boundary();
  }

  /** The run started: watch for a cancel request. @returns stops the watch */
  started(run: Run, approver: PausingApprover): Disposable {
    this.#approver = approver;
    return watchCancel(this.#pool, this.#runId, (reason) => {
      this.#cancelled = true;
      run.cancel(reason);
    });
  }

  /** Whether a cancel request stopped the run. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /**
   * A tool-call step found its call started by an earlier execution and answered it
   * `interrupted` without running it (no runtime event says so): watchers are told.
   */
  async interrupted(info: StepInfo, sessionId: string): Promise<void> {
    if (info.type !== "tool_call") return;
    await this.#events.inject(makeRunEvent("tool_call_failed", {
      call_id: info.callId,
      name: info.name,
      duration_ms: 0,
      error_class: "interrupted",
      message: String(interruptedResult(info.callId, info.name).content),
    }, { runId: this.#runId, sessionId, tool: info.name }));
  }

  /** The run ended: publish its last events. */
  async ended(run: Run): Promise<void> {
    await this.#events.flush(run.lastSeq);
    this.#feed?.close();
  }

  /** A pause ends the run but not what watchers see; a continuation does not start another. */
  #skip(event: RuntimeEvent, continuation: boolean): boolean {
    if (event.type === "run_started") return continuation;
    if (event.type === "run_completed" || event.type === "run_failed") {
      return this.#approver?.paused !== undefined;
    }
    return false;
  }
}
