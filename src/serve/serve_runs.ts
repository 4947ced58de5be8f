/**
 * The runs of one `odek serve`: each on a host of its own, at most `maxConcurrentRuns` at once, one
 * per workspace at a time (the rest queue with the reason), events kept in memory and on disk,
 * and what was queued or going restarted by the next server (§8.3: approvals asked again).
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { generateSessionId } from "../session/generate_session_id.ts";
import type { EventSubscription, RuntimeEvent } from "../runtime/event_subscription.ts";
import type { Run } from "../runtime/run.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionHost } from "../runtime/session_host.ts";
import type { ToolProviderSource } from "../runtime/tool_provider_source.ts";
import type { OperatorRequests } from "./operator_requests.ts";
import { RunRecords, type ServeRunRecord } from "./run_records.ts";
import { ServeEventRing } from "./serve_event_ring.ts";
import { dispatchRun, type ServeRunDispatch } from "./serve_dispatch.ts";
import { continuedGit, gitRecord, type RunStart } from "./run_start.ts";
import type { RemoteRuns } from "./remote_runs.ts";
import { followRemoteApprovals } from "./remote_approvals.ts";
import { workspaceFor } from "./serve_workspace.ts";
import { followRunWarnings } from "./_run_warnings.ts";

export type { RunStart } from "./run_start.ts";

/** Options of {@linkcode ServeRuns}. */
export interface ServeRunsOptions {
  runtime: Runtime;
  requests: OperatorRequests;
  /** Runs going at once; the rest queue. @default 4 */
  maxConcurrentRuns?: number;
  /** Roots a session's named workspace must lie under. @default none: only own folders */
  workspaceRoots?: readonly string[];
  /** Tools every host offers besides the built-in ones (the configured MCP servers). */
  tools?: readonly ToolProviderSource[];
  /** Where run records and events go. @default ODEK_HOME/serve/runs */
  recordsDir?: string;
  /** Hand every run to this instead of running it here (`odek serve --queue`). @default none */
  dispatch?: ServeRunDispatch;
  /** The queue's events, approvals and cancel (`odek serve --queue`). @default none */
  remote?: RemoteRuns;
}

interface Live {
  record: ServeRunRecord;
  run?: Run;
  host?: SessionHost;
}

/** The server's runs. Dispose it to stop them (their state stays on disk for the next start). */
export class ServeRuns implements AsyncDisposable {
  readonly #runtime: Runtime;
  readonly #requests: OperatorRequests;
  readonly #cap: number;
  readonly #dispatch?: ServeRunDispatch;
  readonly #remote?: RemoteRuns;
  readonly #stops: (() => void)[] = [];
  readonly #roots: readonly string[];
  readonly #tools: readonly ToolProviderSource[];
  readonly #records: RunRecords;
  readonly #bySession = new Map<string, Live>();
  readonly #byKey = new Map<string, ServeRunRecord>();
  readonly #runs = new Map<string, Run>();
  readonly #queue: Live[] = [];
  readonly #ring = new ServeEventRing();
  #feed: EventSubscription | undefined;
  #feeding: Promise<void> | undefined;
  #running = 0;
  #closed = false;

  constructor(options: ServeRunsOptions) {
    this.#runtime = options.runtime;
    this.#requests = options.requests;
    this.#cap = options.maxConcurrentRuns ?? 4;
    if (options.dispatch) this.#dispatch = options.dispatch;
    if (options.remote) this.#remote = options.remote;
    this.#roots = options.workspaceRoots ?? [];
    this.#tools = options.tools ?? [];
    this.#records = new RunRecords(
      options.recordsDir ?? join(options.runtime.paths.odekHome, "serve", "runs"),
    );
  }

  /** The stream of every run's events, with replay (`ServeEventRing`). */
  get events(): ServeEventRing {
    return this.#ring;
  }

  /** The queue's runs, with `odek serve --queue`. */
  get remote(): RemoteRuns | undefined {
    return this.#remote;
  }

  /** Runs going now. */
  get running(): number {
    return this.#running;
  }

  /** Open the records and start again what a stopped server left queued or going. */
  async start(): Promise<void> {
    await this.#records.open();
    this.#feed = this.#runtime.events({ bufferSize: 65_536 });
    this.#feeding = (async () => {
      for await (const event of this.#feed!) this.#onEvent(event);
    })();
    if (this.#remote) {
      // Every queued run's events (any serve's) reach this server's streams and page.
      this.#stops.push(await this.#remote.tail((event) => this.#onEvent(event)));
      this.#stops.push(followRemoteApprovals(this.#remote, this.#requests));
    }
    for (const record of await this.#records.all()) {
      this.#byKey.set(record.key, record);
      if (record.state !== "queued" && record.state !== "running") continue;
      if (this.#bySession.has(record.sessionId)) continue;
      // a run that was going resumes its transcript; a queued one starts as it was asked
      // On a queue the key is the workflow's id: dispatching it again under the same key finds
      // the workflow a worker has (or had) and follows it, instead of starting a second one.
      const again: ServeRunRecord = this.#dispatch
        ? { ...record, state: "queued" }
        : record.state === "running"
        ? { ...record, state: "queued", resume: true, message: undefined }
        : record;
      if (record.state === "running" && !this.#dispatch) {
        record.state = "interrupted";
        record.summary = "the server stopped; resumed as a new run";
        await this.#records.save(record);
        again.key = queueKey();
        again.runId = undefined;
      }
      this.#enqueue({ record: again });
    }
    this.#pump();
  }

  /** A record by its key (a run id, or a queued run's key). */
  record(key: string): ServeRunRecord | undefined {
    return this.#byKey.get(key);
  }

  /** Every record, newest first. */
  list(): ServeRunRecord[] {
    return [...this.#byKey.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  /** The run queued or going on a session. */
  current(sessionId: string): ServeRunRecord | undefined {
    return this.#bySession.get(sessionId)?.record;
  }

  /** The live run, while it is in memory. */
  run(runId: string): Run | undefined {
    return this.#runs.get(runId);
  }

  /** A finished run's events from its file (after a restart). */
  storedEvents(runId: string, after: number): Promise<RuntimeEvent[] | undefined> {
    return this.#records.readEvents(runId, after);
  }

  /**
   * Queue a run (it starts at once when a slot and its workspace are free).
   *
   * @throws {OdekError} `SESSION_BUSY` (a run of the session is queued or going),
   *   `SESSION_NOT_FOUND`, `WORKSPACE_INVALID` (outside the allowed roots), `USAGE`
   */
  async submit(start: RunStart): Promise<ServeRunRecord> {
    if (this.#closed) throw new OdekError("SESSION_BUSY", "The server is stopping.");
    let record: ServeRunRecord;
    if (start.sessionId !== undefined && start.task === undefined) {
      const busy = this.#bySession.get(start.sessionId);
      if (busy) {
        throw new OdekError(
          "SESSION_BUSY",
          `Session ${start.sessionId} already has a run ${busy.record.state}: wait for it or cancel it.`,
        );
      }
      const { meta } = await this.#runtime.sessions.read(start.sessionId);
      record = continuedGit(this.#newRecord(meta.id, meta.workspace), this.list());
      if (start.message !== undefined) record.message = start.message;
      else record.resume = true;
    } else {
      const id = start.sessionId ?? generateSessionId(new Date());
      if (this.#bySession.has(id) || (await this.#exists(id))) {
        throw new OdekError("SESSION_BUSY", `A session named ${id} exists already.`);
      }
      record = start.git
        ? gitRecord(this.#newRecord(id, start.git.repository), start, this.#dispatch !== undefined)
        : this.#newRecord(id, await workspaceFor(this.#runtime, this.#roots, id, start.workspace));
      record.task = start.task;
      if (start.message !== undefined) record.message = start.message;
    }
    await this.#records.save(record);
    this.#byKey.set(record.key, record);
    this.#enqueue({ record });
    this.#pump();
    return record;
  }

  /**
   * Cancel a run (queued: it is dropped; going: its run is cancelled).
   *
   * @returns false when the run is not queued or going
   */
  async cancel(key: string, reason = "cancelled over the API"): Promise<boolean> {
    const record = this.#byKey.get(key);
    if (!record) return false;
    const live = this.#bySession.get(record.sessionId);
    if (!live || live.record !== record) return false;
    const queued = this.#queue.indexOf(live);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      this.#bySession.delete(record.sessionId);
      await this.#end(record, "interrupted", reason, "INTERRUPTED");
      return true;
    }
    if (live.run) live.run.cancel(reason);
    else if (this.#remote) return await this.#remote.cancel(record.key, reason);
    return true;
  }

  #newRecord(sessionId: string, workspace: string): ServeRunRecord {
    return {
      key: queueKey(),
      sessionId,
      state: "queued",
      createdAt: new Date().toISOString(),
      workspace,
    };
  }

  async #exists(id: string): Promise<boolean> {
    try {
      await this.#runtime.sessions.read(id);
      return true;
    } catch (error) {
      if (error instanceof OdekError && error.code === "SESSION_NOT_FOUND") return false;
      throw error;
    }
  }

  #enqueue(live: Live): void {
    this.#bySession.set(live.record.sessionId, live);
    this.#byKey.set(live.record.key, live.record);
    this.#queue.push(live);
  }

  #pump(): void {
    if (this.#closed) return;
    for (const live of [...this.#queue]) {
      const busyWorkspace = !live.record.git &&
        [...this.#bySession.values()].some((other) =>
          other !== live && other.record.state === "running" &&
          other.record.workspace === live.record.workspace
        );
      const reason = busyWorkspace
        ? `another run is writing the workspace ${live.record.workspace}`
        : this.#running >= this.#cap
        ? `${this.#running} runs are going (the server's cap is ${this.#cap})`
        : undefined;
      if (reason) {
        if (live.record.queuedReason !== reason) {
          live.record.queuedReason = reason;
          void this.#records.save(live.record).catch(() => {});
        }
        continue;
      }
      this.#queue.splice(this.#queue.indexOf(live), 1);
      this.#running++;
      live.record.state = "running";
      void this.#go(live);
    }
  }

  async #go(live: Live): Promise<void> {
    const { record } = live;
    if (this.#dispatch) {
      await dispatchRun(record, this.#dispatch, (r) => this.#records.save(r));
      if (this.#bySession.get(record.sessionId) === live) this.#bySession.delete(record.sessionId);
      this.#running--;
      this.#pump();
      return;
    }
    const queuedKey = record.key;
    try {
      // a new session's task, unless a server that stopped had created the session already
      const target = record.task !== undefined && !(await this.#exists(record.sessionId))
        ? { task: record.task, sessionId: record.sessionId }
        : { sessionId: record.sessionId };
      if (!("task" in target) && record.task !== undefined && record.message === undefined) {
        record.resume = true;
      }
      live.host = await this.#runtime.openSession(target, {
        workspace: record.workspace,
        approver: this.#requests.approverFor(record.sessionId),
        clarifier: this.#requests.clarifierFor(record.sessionId),
        reaskApprovals: true,
        tools: this.#tools,
      });
      record.task = undefined; // the session exists now: a restart resumes it
      const run = await live.host.startRun(
        record.message !== undefined ? { message: record.message } : {},
      );
      live.run = run;
      // Saved whenever the parts add warnings, also after the run's end was saved (writes of one
      // record land in call order, so this one holds the end too).
      const noteWarnings = followRunWarnings(record, live.host, run, () => {
        void this.#records.save(record).catch(() => {});
      });
      this.#runs.set(run.id, run);
      this.#byKey.delete(queuedKey);
      record.key = run.id;
      record.runId = run.id;
      record.startedAt = new Date().toISOString();
      delete record.queuedReason;
      this.#byKey.set(record.key, record);
      await this.#records.save(record);
      await this.#records.remove(queuedKey);
      record.model = live.host.meta.model;
      const outcome = await run.result;
      noteWarnings();
      record.usage = {
        inputTokens: outcome.stats.inputTokens,
        outputTokens: outcome.stats.outputTokens,
        toolCalls: outcome.stats.toolCalls,
      };
      const summary = outcome.type === "completed" ? outcome.text ?? "" : outcome.error.message;
      const code = outcome.type === "completed"
        ? undefined
        : outcome.error instanceof OdekError
        ? outcome.error.code
        : "FAILED";
      await this.#end(record, outcome.type, summary, code);
    } catch (error) {
      const code = error instanceof OdekError ? error.code : "FAILED";
      await this.#end(
        record,
        "failed",
        error instanceof Error ? error.message : String(error),
        code,
      );
    } finally {
      await live.host?.close().catch(() => {});
      if (this.#bySession.get(record.sessionId) === live) this.#bySession.delete(record.sessionId);
      this.#running--;
      this.#pump();
    }
  }

  async #end(
    record: ServeRunRecord,
    state: ServeRunRecord["state"],
    summary: string,
    errorCode: string | undefined,
  ): Promise<void> {
    if (this.#closed && state === "interrupted") return; // a stopping server resumes it next time
    record.state = state;
    record.summary = summary;
    record.endedAt = new Date().toISOString();
    if (errorCode) record.errorCode = errorCode;
    await this.#records.save(record).catch(() => {});
  }

  #onEvent(event: RuntimeEvent): void {
    this.#ring.push(event);
    try {
      this.#records.appendEvent(event);
    } catch {
      // a full disk loses replay after a restart, never the run
    }
    if (event.type === "run_completed" || event.type === "run_failed") {
      this.#records.closeEvents(event.run_id);
      // its last event is on disk: its events replay from the file, the run is not kept
      this.#runs.delete(event.run_id);
    }
  }

  /** Stop every run (records stay as they were, so the next server resumes them). */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    for (const stop of this.#stops) stop();
    await Promise.allSettled([...this.#bySession.values()].map((live) => live.host?.close()));
    this.#feed?.close();
    await this.#feeding;
    this.#ring.end();
    this.#records.close();
  }
}

function queueKey(): string {
  return `q-${crypto.randomUUID()}`;
}
