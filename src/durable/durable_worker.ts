/**
 * `odek worker`: one process that takes runs off the queue (a DBOS queue in PostgreSQL) and runs
 * each as a durable workflow, heartbeats its lease, and takes over the runs of a worker whose
 * lease expired.
 *
 * @module
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { join } from "node:path";
// @ts-types="@types/pg"
import pg from "pg";
import { OdekError } from "../_util/odek_error.ts";
import { shadowGitdir } from "../checkpoint/shadow_gitdir.ts";
import type { StepJournal } from "../loop/journal_step_runner.ts";
import type { StepRunner } from "../loop/step_runner.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { SessionStore } from "../session/session_store.ts";
import { BackendSessionStore } from "../session/backend_session_store.ts";
import { durableStepRunner } from "./durable_step_runner.ts";
import { PgJournalBackend } from "./pg_journal_backend.ts";
import { ensureQueueSchema } from "./queue_schema.ts";
import { type QueuedRun, type QueuedRunResult, QueuedRunSchema } from "./queued_run.ts";
import { WorkerLease } from "./worker_lease.ts";
import { PausingApprover } from "./pausing_approver.ts";
import { DURABLE_APP, DURABLE_VERSION, RUN_WORKFLOW } from "./queue_names.ts";
import { RunWorkspace } from "./run_workspace.ts";
import { RunChannels } from "./run_channels.ts";
import { recordCancelled } from "./run_cancel_watch.ts";

/** Options of {@linkcode startDurableWorker}. */
export interface DurableWorkerOptions {
  /** The queue's database, `postgres://…`. */
  url: string;
  /** The queue's name. @default "odek-runs" */
  queue?: string;
  /** Runs this worker runs at once. @default 2 */
  concurrency?: number;
  /** Runs going at once over every worker (the queue's limit). @default no limit */
  queueConcurrency?: number;
  /** How long a lease lasts without a heartbeat, in milliseconds. @default 15000 */
  leaseMs?: number;
  /** This worker's id (the engine's executor id). @default `worker-<random>` */
  workerId?: string;
  /** Build the runtime a run uses, on the given session store. */
  runtime: (store: SessionStore) => Promise<Runtime>;
  /** Told what the worker does (started, took over, run ended). @default nothing */
  log?: (line: string) => void;
  /**
   * Runs on a git repository (`QueuedRun.git`): the operator's credential helper, given to the
   * fetches and pushes only (git's `credential.helper` syntax), and the folder scratch
   * workspaces are made in. @default no helper, the system's temp folder
   */
  git?: { credentialHelper?: string; scratchRoot?: string };
}

/** A running worker. Dispose it to stop (its runs go to whoever takes over its lease). */
export interface DurableWorker extends AsyncDisposable {
  /** The worker's id. */
  readonly workerId: string;
}

let started = false;

/**
 * Start a worker in this process (one per process: the engine is process-wide).
 *
 * @param options the database, queue, limits and runtime factory
 * @returns the worker
 * @throws {OdekError} `USAGE` when a worker already runs in this process; the database's errors
 *
 * @example Start a worker (needs PostgreSQL)
 * ```ts ignore
 * import { createRuntime } from "../runtime/create_runtime.ts";
 * await using worker = await startDurableWorker({
 *   url: "postgres://odek@127.0.0.1:5432/odek",
 *   runtime: (store) => createRuntime({ env: Deno.env.toObject(), store }),
 * });
 * ```
 */
export async function startDurableWorker(options: DurableWorkerOptions): Promise<DurableWorker> {
  if (started) throw new OdekError("USAGE", "A durable worker already runs in this process.");
  started = true;
  const workerId = options.workerId ?? `worker-${crypto.randomUUID().slice(0, 8)}`;
  const queue = options.queue ?? "odek-runs";
  const log = options.log ?? (() => {});
  const pool = new pg.Pool({ connectionString: options.url, max: 8 });
  pool.on("error", (error) => log(`database connection lost: ${error.message}`));
  await ensureQueueSchema(pool);

  const runWorkflow = async (raw: QueuedRun): Promise<QueuedRunResult> => {
    const request = QueuedRunSchema.parse(raw);
    const workflowId = DBOS.workflowID ?? request.runId;
    const seen = await DBOS.runStep(async () => {
      const count = await pool.query(
        `SELECT count(*)::int AS n FROM odek.journal WHERE session_id = $1`,
        [request.sessionId],
      );
      return count.rows[0].n as number;
    }, { name: "begin" });
    await pool.query(
      `UPDATE odek.runs SET state = 'running', worker_id = $2, updated_at = now() WHERE run_id = $1`,
      [request.runId, workerId],
    );
    log(`run ${request.runId}: going (session ${request.sessionId})`);
    const opened = request.git
      ? await gitWorkspace(request, options, log).catch((error: Error) => error)
      : undefined;
    if (opened instanceof Error) return await unopened(pool, request, workerId, opened, log);
    await using workspace = opened;
    const channels = await RunChannels.open({
      pool,
      workflowId,
      workerId,
      continuation: request.approvals !== undefined,
      log,
    });
    const backend = new PgJournalBackend(pool, {
      owner: workflowId,
      view: seen,
      dedupe: workflowId,
    });
    const result = await runOnce(
      options,
      new BackendSessionStore(backend, {
        label: "PostgreSQL",
      }),
      request,
      (journal) =>
        durableStepRunner({
          journal,
          pool,
          workflowId,
          workerId,
          onInterrupted: async (info) => {
            log(
              `run ${request.runId}: ${info.type === "tool_call" ? info.callId : ""} interrupted`,
            );
            await channels.interrupted(info, request.sessionId);
          },
          boundary: () => channels.boundary(),
          cancelled: () => channels.cancelled,
          ...(workspace
            ? {
              afterWrite: async (info) => {
                await workspace.checkpoint(`after ${info.name} (${info.callId})`, [info.callId]);
              },
            }
            : {}),
        }),
      workerId,
      workspace,
      channels,
    );
    // A cancelled workflow records no more steps: its end is written here.
    if (channels.cancelled && await recordCancelled(pool, result)) return result;
    await DBOS.runStep(async () => {
      await pool.query(
        `UPDATE odek.runs SET state = $2, result = $3, updated_at = now() WHERE run_id = $1`,
        [request.runId, result.outcome, JSON.stringify(result)],
      );
    }, { name: "finish" });
    // A failed run says why, as the one whose workspace could not be made does (below).
    log(
      `run ${request.runId}: ${result.outcome}${
        result.outcome === "failed" ? ` (${result.text.split("\n")[0]})` : ""
      }`,
    );
    return result;
  };
  DBOS.registerWorkflow(runWorkflow, { name: RUN_WORKFLOW });
  DBOS.setConfig({
    name: DURABLE_APP,
    systemDatabaseUrl: options.url,
    executorID: workerId,
    applicationVersion: DURABLE_VERSION,
    listenQueues: [queue],
    logLevel: "error",
  });
  await DBOS.launch();
  await DBOS.registerQueue(queue, {
    workerConcurrency: options.concurrency ?? 2,
    ...(options.queueConcurrency ? { globalConcurrency: options.queueConcurrency } : {}),
    minPollingIntervalMs: 250,
    onConflict: "always_update",
  });
  const lease = new WorkerLease(pool, {
    workerId,
    queue,
    leaseMs: options.leaseMs ?? 15_000,
    log,
  });
  await lease.start();
  log(`worker ${workerId}: listening on queue ${queue}`);
  return {
    workerId,
    async [Symbol.asyncDispose]() {
      await lease.stop();
      await DBOS.shutdown();
      await pool.end();
      started = false;
    },
  };
}

/** Open the session, run it with the durable step runner, close everything. */
async function runOnce(
  options: DurableWorkerOptions,
  store: SessionStore,
  request: QueuedRun,
  steps: (journal: StepJournal) => StepRunner,
  workerId: string,
  workspace: RunWorkspace | undefined,
  channels: RunChannels,
): Promise<QueuedRunResult> {
  await using runtime = await options.runtime(store);
  // A scratch workspace is gone after the run: so is the host's shadow repository of it.
  await using _shadow = {
    [Symbol.asyncDispose]: async () => {
      if (!workspace) return;
      const dir = join(runtime.paths.odekHome, "checkpoints");
      const gitdir = shadowGitdir(dir, workspace.workspace);
      await Deno.remove(gitdir, { recursive: true }).catch(() => {});
    },
  };
  channels.listen(runtime);
  // A recovery of a first run whose worker died after creating the session resumes that session.
  const exists = request.task !== undefined &&
    await store.read(request.sessionId).then(() => true, () => false);
  const target = request.task !== undefined && !exists
    ? { task: request.task, sessionId: request.sessionId }
    : { sessionId: request.sessionId };
  const approver = new PausingApprover(
    (request.approvals ?? []).map((answer) => ({ ...answer, scope: "once" as const })),
    runtime.redact,
  );
  await using host = await runtime.openSession(target, {
    workspace: workspace?.workspace ?? request.workspace,
    approver,
    reaskApprovals: true,
  });
  const run = await host.startRun(durableRunStart(steps, request));
  approver.bind((reason) => run.cancel(reason));
  using _cancel = channels.started(run, approver);
  const outcome = await run.result;
  await channels.ended(run);
  const warnings = [...host.warnings, ...run.warnings];
  for (const warning of warnings) options.log?.(`run ${request.runId}: warning: ${warning}`);
  const base = {
    runId: request.runId,
    sessionId: request.sessionId,
    workerId,
    ...(workspace ? { git: await workspace.result() } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
  if (approver.paused) {
    const names = approver.paused.calls.map((call) => call.toolName).join(", ");
    return {
      ...base,
      outcome: "awaiting_approval",
      text: `Waiting for approval ${approver.paused.id} (${names}).`,
      approval: approver.paused,
    };
  }
  const text = outcome.type === "completed" ? outcome.text ?? "" : outcome.error.message;
  return { ...base, outcome: outcome.type, text };
}

function durableRunStart(stepRunner: (journal: StepJournal) => StepRunner, request: QueuedRun) {
  return {
    ...(request.message !== undefined ? { message: request.message } : {}),
    stepRunner,
  };
}

/**
 * A git run's workspace: the base commit is resolved once, as a durable step (a takeover diffs
 * against the same base), then the workspace is filled from the run branch or the base.
 */
async function gitWorkspace(
  request: QueuedRun,
  options: DurableWorkerOptions,
  log: (line: string) => void,
): Promise<RunWorkspace> {
  const workspace = await RunWorkspace.create({
    git: { ...request.git!, branch: request.git!.branch ?? `odek/run/${request.runId}` },
    sessionId: request.sessionId,
    runId: request.runId,
    log,
    ...(options.git?.credentialHelper ? { credentialHelper: options.git.credentialHelper } : {}),
    ...(options.git?.scratchRoot ? { scratchRoot: options.git.scratchRoot } : {}),
  });
  try {
    const base = await DBOS.runStep(() => workspace.resolveBase(), { name: "git_base" });
    await workspace.checkout(base);
    return workspace;
  } catch (error) {
    await workspace[Symbol.asyncDispose]();
    throw error;
  }
}

/** A git run whose workspace could not be made (the repository unreachable, no such ref) fails. */
async function unopened(
  pool: pg.Pool,
  request: QueuedRun,
  workerId: string,
  error: Error,
  log: (line: string) => void,
): Promise<QueuedRunResult> {
  const result: QueuedRunResult = {
    runId: request.runId,
    sessionId: request.sessionId,
    workerId,
    outcome: "failed",
    text: error.message,
  };
  await DBOS.runStep(async () => {
    await pool.query(
      `UPDATE odek.runs SET state = $2, result = $3, updated_at = now() WHERE run_id = $1`,
      [request.runId, result.outcome, JSON.stringify(result)],
    );
  }, { name: "finish" });
  log(`run ${request.runId}: failed (${error.message})`);
  return result;
}
