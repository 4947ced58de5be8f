/**
 * Background programs (`bg_start`, `bg_list`, `bg_status`, `bg_output`, `bg_stop`): each runs in
 * a fresh sandbox rendered exactly like a `shell` command's, keeps the newest bytes of its output
 * in bounded buffers, and dies with the run unless it was started detached (odek-go §4:
 * session-scoped jobs, bounded output rings, stopped by a group signal).
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { OutputRing } from "./_output_ring.ts";
import { killSandbox } from "./_kill_sandbox.ts";
import { childrenOf, terminateSandbox } from "./_terminate.ts";
import { SETSID } from "./_start_program.ts";
import type { PermissionSet } from "./permission_set.ts";
import { renderSandbox, type SandboxContext } from "./render_sandbox.ts";
import { SANDBOX_CHECK_PASSED } from "./_sandbox_check.ts";
import { SandboxCheckVerdict } from "./_sandbox_check_verdict.ts";

/** Options for {@linkcode BackgroundJobs}. */
export interface BackgroundJobsOptions {
  /** Bytes kept of each output stream per job (the newest). @default 262_144 */
  ringBytes?: number;
  /** Jobs that may run at once. @default 8 */
  maxRunning?: number;
  /** Milliseconds between SIGTERM and SIGKILL when a job is stopped. @default 2000 */
  graceMs?: number;
}

/** What a job is doing. `exitCode` is set once it ended (128 + n for signal n). */
export interface JobStatus {
  id: string;
  command: string;
  detached: boolean;
  state: "running" | "exited" | "stopped";
  exitCode?: number;
  /** Wall time since start, or until exit, in ms. */
  runtimeMs: number;
  stdoutBytes: number;
  stderrBytes: number;
  /** For a detached job: the file its output goes to (it outlives the run). */
  logFile?: string;
}

interface Job {
  id: string;
  command: string;
  detached: boolean;
  /** Run in a bwrap sandbox: `child` is bwrap itself (every wrapper before it execs). */
  sandboxed: boolean;
  child: Deno.ChildProcess;
  /** Stops reading the job's pipes (a process that escaped the kill may hold them open). */
  cancelPumps: () => void;
  startedAt: number;
  endedAt?: number;
  exitCode?: number;
  stopped: boolean;
  stdout: OutputRing;
  stderr: OutputRing;
  logFile?: string;
  done: Promise<void>;
}

// An attached job's wrappers each exec the next (setsid, bash, the sandbox launcher, bwrap), so the
// spawned pid ends as bwrap itself, whose parent is odek (bwrap's --die-with-parent follows odek).
// A detached job's bash stays as bwrap's parent, ignoring SIGHUP, so the job outlives odek; its
// output goes to a log file.
const ATTACHED = 'exec "$@"';
const DETACHED = 'trap "" HUP; "$@" </dev/null >>"$0" 2>&1';

/**
 * The jobs of one run.
 *
 * @example Start an unsandboxed job, read its output, stop the rest
 * ```ts
 * import { BackgroundJobs } from "./background_jobs.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const jobs = new BackgroundJobs();
 * const context = { mode: "none" as const, bwrapPath: null, denoPath: Deno.execPath(), denoDir: "/nonexistent",
 *   toolsDir: "/nonexistent", workspace: ws, home: ws, odekHome: ws, installDir: "/nonexistent",
 *   protectedRoots: [], readOnlyHomeFiles: [] };
 * const set = { readPaths: [ws], writePaths: [ws], network: { type: "none" as const }, runBinaries: [], envNames: [] };
 * const job = await jobs.start("echo ready", { set, context, detached: false });
 * await jobs.wait(job.id, 5000);
 * if (!jobs.output(job.id, 100).stdout.text.includes("ready")) throw new Error("no output");
 * await jobs.close();
 * await Deno.remove(ws, { recursive: true });
 * ```
 */
export class BackgroundJobs implements AsyncDisposable {
  readonly #ringBytes: number;
  readonly #maxRunning: number;
  readonly #graceMs: number;
  readonly #jobs = new Map<string, Job>();
  #next = 1;

  /** @param options buffer size, concurrency and grace period */
  constructor(options: BackgroundJobsOptions = {}) {
    this.#ringBytes = options.ringBytes ?? 262_144;
    this.#maxRunning = options.maxRunning ?? 8;
    this.#graceMs = options.graceMs ?? 2000;
  }

  /**
   * Start `bash -c command` in its own sandbox, in a new session.
   *
   * @throws {OdekError} `TOOL_CHILD_FAILED` when bash or setsid cannot be started;
   *   `SANDBOX_UNAVAILABLE` in bwrap mode without bwrap; `RangeError` from the renderer;
   *   a plain `Error` when {@linkcode BackgroundJobsOptions.maxRunning} jobs already run
   */
  async start(
    command: string,
    options: {
      set: PermissionSet;
      context: SandboxContext;
      detached: boolean;
      /** The job's egress credential, when its network was approved. */
      egressToken?: string;
      /** Called once the job has ended (its sandbox is gone). */
      onExit?: () => void;
    },
  ): Promise<JobStatus> {
    const running = [...this.#jobs.values()].filter((j) => j.exitCode === undefined).length;
    if (running >= this.#maxRunning) {
      throw new Error(
        `${running} background jobs are running, the most a run may have: stop one with bg_stop first`,
      );
    }
    if (SETSID === undefined) {
      throw new OdekError(
        "TOOL_CHILD_FAILED",
        "Cannot start a background job: setsid (util-linux) is missing. Install util-linux.",
      );
    }
    const id = `bg${this.#next++}`;
    const { argv, env, check } = renderSandbox(options.set, options.context, {
      kind: "program",
      argv: ["bash", "-c", command],
      ...(options.egressToken ? { egressToken: options.egressToken } : {}),
    });
    let logFile: string | undefined;
    if (options.detached) {
      const dir = `${options.context.odekHome}/jobs`;
      await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
      logFile = `${dir}/${new Date().toISOString().replace(/[:.]/g, "-")}-${id}.log`;
      await Deno.writeTextFile(logFile, "", { mode: 0o600, createNew: true });
    }
    const script = options.detached ? DETACHED : ATTACHED;
    const child = new Deno.Command(SETSID, {
      args: ["/bin/bash", "-c", script, logFile ?? "bg-job", ...argv],
      cwd: options.context.workspace,
      clearEnv: true,
      env,
      stdin: "null",
      stdout: options.detached ? "null" : "piped",
      stderr: options.detached ? "null" : "piped",
    }).spawn();
    const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
    const job: Job = {
      id,
      command,
      detached: options.detached,
      sandboxed: check,
      child,
      cancelPumps: () => {
        for (const reader of readers) reader.cancel().catch(() => {});
      },
      startedAt: performance.now(),
      stopped: false,
      stdout: new OutputRing(this.#ringBytes),
      stderr: new OutputRing(this.#ringBytes),
      ...(logFile ? { logFile } : {}),
      done: Promise.resolve(),
    };
    const pump = async (stream: ReadableStream<Uint8Array> | null, ring: OutputRing) => {
      if (!stream) return;
      const reader = stream.getReader();
      readers.push(reader);
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        ring.write(read.value);
      }
    };
    job.done = Promise.all([
      options.detached ? undefined : pump(child.stdout, job.stdout).catch(() => {}),
      // The sandbox check's word is not the job's output (a job is never refused).
      options.detached ? undefined : pump(
        check ? child.stderr.pipeThrough(new SandboxCheckVerdict()) : child.stderr,
        job.stderr,
      ).catch(() => {}),
      child.status.then((status) => {
        job.exitCode = status.signal ? 128 + signalNumber(status.signal) : status.code;
        job.endedAt = performance.now();
      }),
    ]).then(() => {
      try {
        options.onExit?.();
      } catch {
        // The job has ended either way.
      }
    });
    if (options.detached) child.unref();
    this.#jobs.set(id, job);
    return this.status(id)!;
  }

  /** Every job of this run, oldest first. */
  list(): JobStatus[] {
    return [...this.#jobs.keys()].map((id) => this.status(id)!);
  }

  /** One job's status, or `undefined` for an unknown id. */
  status(id: string): JobStatus | undefined {
    const job = this.#jobs.get(id);
    if (!job) return undefined;
    const state = job.exitCode === undefined ? "running" : job.stopped ? "stopped" : "exited";
    return {
      id,
      command: job.command,
      detached: job.detached,
      state,
      ...(job.exitCode !== undefined ? { exitCode: job.exitCode } : {}),
      runtimeMs: Math.round((job.endedAt ?? performance.now()) - job.startedAt),
      stdoutBytes: job.stdout.totalBytes,
      stderrBytes: job.stderr.totalBytes,
      ...(job.logFile ? { logFile: job.logFile } : {}),
    };
  }

  /**
   * The newest `maxBytes` of each stream. A detached job's output is read from its log file.
   * @throws {Error} for an unknown id
   */
  output(id: string, maxBytes: number): {
    stdout: { text: string; omittedBytes: number };
    stderr: { text: string; omittedBytes: number };
  } {
    const job = this.#require(id);
    if (job.logFile) {
      const stdout = logTail(job.logFile, maxBytes, job.sandboxed);
      return { stdout, stderr: { text: "", omittedBytes: 0 } };
    }
    return { stdout: job.stdout.tail(maxBytes), stderr: job.stderr.tail(maxBytes) };
  }

  /** Wait up to `timeoutMs` for a job to end; resolves `true` when it has. */
  async wait(id: string, timeoutMs: number): Promise<boolean> {
    const job = this.#require(id);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) =>
      timer = setTimeout(() => resolve(false), timeoutMs)
    );
    const ended = await Promise.race([job.done.then(() => true as const), timeout]);
    clearTimeout(timer);
    return ended;
  }

  /**
   * Stop a job. A sandboxed one: SIGTERM to every process below its bwrap, never to bwrap itself
   * (a bwrap killed while it sets the sandbox up leaves the sandbox running, outside odek's reach),
   * then after the grace period SIGKILL to the whole sandbox ({@linkcode terminateSandbox}). An
   * unsandboxed one: SIGTERM to its process group, then SIGKILL to the group. Resolves once the
   * job's process has ended and its output is read (or, when something it started still holds
   * the pipes a grace period later, no longer read). A job that already ended is left as it is.
   * @throws {Error} for an unknown id
   */
  async stop(id: string): Promise<JobStatus> {
    const job = this.#require(id);
    if (job.exitCode === undefined) {
      job.stopped = true;
      // A detached job's process was unref'd: awaiting its end must keep this process alive.
      job.child.ref();
      if (job.sandboxed) {
        // A detached job's bwrap is its bash's child (the bash exits once bwrap has).
        const bwrap = job.detached ? (await childrenOf(job.child.pid))[0] : job.child.pid;
        if (bwrap !== undefined) {
          await terminateSandbox(bwrap, job.child.status, this.#graceMs);
        } else {
          signalGroup(job.child.pid, "SIGKILL"); // the bash has not started bwrap yet
        }
      } else {
        signalGroup(job.child.pid, "SIGTERM");
        if (!(await this.wait(id, this.#graceMs))) {
          await killSandbox(job.child.pid);
          signalGroup(job.child.pid, "SIGKILL");
        }
      }
      await job.child.status;
      if (!(await this.wait(id, this.#graceMs))) {
        job.cancelPumps();
        await job.done;
      }
    }
    return this.status(id)!;
  }

  /** Stop every job that was not started detached. Idempotent. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.#jobs.values()].filter((j) => !j.detached && j.exitCode === undefined).map((j) =>
        this.stop(j.id)
      ),
    );
  }

  /** {@linkcode BackgroundJobs.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #require(id: string): Job {
    const job = this.#jobs.get(id);
    if (!job) {
      const known = [...this.#jobs.keys()].join(", ") || "none";
      throw new Error(`There is no background job "${id}" in this run (jobs: ${known})`);
    }
    return job;
  }
}

function signalGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch {
    // The group is gone.
  }
}

function signalNumber(signal: Deno.Signal): number {
  const numbers: Partial<Record<Deno.Signal, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGKILL: 9,
    SIGTERM: 15,
  };
  return numbers[signal] ?? 0;
}

/**
 * The newest `maxBytes` of a detached job's log, read without loading the rest (the job may have
 * written gigabytes); a cut UTF-8 sequence at the start is dropped, like `OutputRing.tail`. A
 * sandboxed job's log starts with its sandbox check's word, which is not shown.
 */
function logTail(
  path: string,
  maxBytes: number,
  checked: boolean,
): { text: string; omittedBytes: number } {
  try {
    using file = Deno.openSync(path, { read: true });
    const size = file.statSync().size;
    let start = Math.max(0, size - maxBytes);
    // Read from the start while the check's word may be in the tail, so it is cut off whole.
    if (checked && start < SANDBOX_CHECK_PASSED.length) start = 0;
    file.seekSync(start, Deno.SeekMode.Start);
    const tail = new Uint8Array(size - start);
    let read = 0;
    while (read < tail.length) {
      const n = file.readSync(tail.subarray(read));
      if (n === null) break;
      read += n;
    }
    const ring = new OutputRing(Math.max(1, maxBytes));
    const bytes = tail.subarray(0, read);
    ring.write(checked && start === 0 ? SandboxCheckVerdict.of(bytes).rest : bytes);
    const shown = ring.tail(maxBytes);
    return { text: shown.text, omittedBytes: shown.omittedBytes + start };
  } catch {
    return { text: "", omittedBytes: 0 }; // the log is gone: nothing to show
  }
}
