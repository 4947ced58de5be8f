/**
 * The shell tool's runner: one fresh sandbox per command (design §2).
 *
 * @module
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { MAX_SHELL_STREAM_BYTES } from "./builtin_tools.ts";
import { BWRAP_INSTALL_COMMAND } from "./find_bwrap.ts";
import type { PermissionSet } from "./permission_set.ts";
import { renderSandbox, type SandboxContext } from "./render_sandbox.ts";
import type { ToolResult } from "./tool_broker.ts";
import { DEFAULT_KILL_GRACE_MS, terminateSandbox } from "./_terminate.ts";
import { type SandboxStandby, STANDBY_LAUNCHER } from "./_sandbox_standby.ts";
import { type CappedText, collectCapped, formatShellOutput } from "./_shell_output.ts";

/** Options for {@linkcode runShell}. */
export interface RunShellOptions {
  /** The scope of the command (mounts and network). */
  set: PermissionSet;
  /** Paths and mode; `workspace` is the command's cwd, `PWD` and `OLDPWD`. */
  context: SandboxContext;
  /** Kill the sandbox and everything in it after this many milliseconds. */
  timeoutMs: number;
  /** Kills the sandbox and everything in it; the result is `interrupted`. */
  signal?: AbortSignal;
  /** Bytes kept of each of stdout and stderr (the head). @default 1_048_576 */
  maxStreamBytes?: number;
  /**
   * Spare sandboxes (bwrap mode): the command runs in a fresh sandbox started ahead of time, and
   * the next one is started in the background. @default none: the sandbox is started on demand
   */
  standby?: SandboxStandby;
  /**
   * On timeout or abort: SIGTERM first, SIGKILL this many milliseconds later if the command is
   * still running. @default 2_000
   */
  killGraceMs?: number;
}

/** A started program, whatever started it. */
interface Started {
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  /** Resolves with the exit code once the program has exited (and, unsandboxed, its group died). */
  exited: Promise<number>;
  /** SIGTERM everything the command started, SIGKILL after the grace. Safe to call twice. */
  kill(): void;
}

/**
 * Run `bash -c <command>` with the workspace as cwd, in a fresh bwrap sandbox rendered from
 * `set`, spawned by the core (Deno flags give a program no confinement). The sandbox has its own
 * pid namespace: on timeout or abort every process of the command gets SIGTERM, and after
 * `killGraceMs` its pid 1 and bwrap are killed (see `terminateSandbox`), which kills every
 * process the command started, backgrounded ones included; the same happens when the command
 * ends (bwrap's pid 1 exits with it). With `mode: "none"` bash runs unconfined (same env and
 * cwd) in its own process group, which gets SIGTERM and then SIGKILL the same way (odek-go §4.1
 * kills the whole group too).
 *
 * Output: `exit code N · D ms`, then `stdout:`/`stderr:` sections, each capped at
 * `maxStreamBytes` (head kept, dropped bytes counted). Exit 0 → `ok: true`; another exit code →
 * `failed` with the same text; timeout → `timeout` with the partial output; abort →
 * `interrupted`; `bwrap` mode without bwrap → `sandbox_unavailable` (nothing runs).
 *
 * @param command the bash command, passed as one argv element
 * @param options scope, context, timeout, abort signal, stream cap
 * @returns the tool result; never rejects for command failures
 * @throws {RangeError} when the scope cannot be rendered (see {@linkcode renderSandbox})
 *
 * @example Run a command unsandboxed in a temp workspace
 * ```ts
 * import { runShell } from "./run_shell.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   const result = await runShell("echo hi", {
 *     set: { readPaths: [ws], writePaths: [ws], network: { type: "none" }, runBinaries: [], envNames: [] },
 *     context: { mode: "none", bwrapPath: null, denoPath: Deno.execPath(), denoDir: "/nonexistent",
 *       toolsDir: "/nonexistent", workspace: ws, home: ws, odekHome: "/nonexistent",
 *       installDir: "/nonexistent", protectedRoots: [], readOnlyHomeFiles: [] },
 *     timeoutMs: 10_000,
 *   });
 *   if (!result.ok || !result.output.includes("stdout:\nhi\n")) throw new Error(JSON.stringify(result));
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function runShell(command: string, options: RunShellOptions): Promise<ToolResult> {
  const { set, context, timeoutMs, signal } = options;
  const maxBytes = options.maxStreamBytes ?? MAX_SHELL_STREAM_BYTES;
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (signal?.aborted) {
    return {
      ok: false,
      error: { kind: "interrupted", message: "The command was interrupted before it started" },
    };
  }
  if (context.mode === "bwrap" && context.bwrapPath === null) {
    return {
      ok: false,
      error: {
        kind: "sandbox_unavailable",
        message:
          `Cannot run shell commands as bwrap is not installed: run "${BWRAP_INSTALL_COMMAND}" as root, or set "sandbox": "none" in ODEK_HOME/config.jsonc to run unsandboxed`,
      },
    };
  }
  if (command.includes("\0")) {
    return {
      ok: false,
      error: {
        kind: "invalid_arguments",
        message: "The command contains a NUL byte, which bash cannot run",
      },
    };
  }
  const viaStandby = context.mode === "bwrap" && options.standby !== undefined;
  const { argv, env } = renderSandbox(set, context, {
    kind: "program",
    argv: ["bash", "-c", viaStandby ? STANDBY_LAUNCHER : command],
  });
  let started = performance.now();
  let program: Started;
  if (viaStandby) {
    const child = await options.standby!.take({ argv, env, cwd: context.workspace });
    started = performance.now();
    program = watchSandboxed(child, grace);
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(`${command}\0`)).catch(() => {});
    await writer.close().catch(() => {});
  } else {
    program = context.mode === "bwrap"
      ? startSandboxed(argv, env, context.workspace, grace)
      : startUnconfined(argv, env, context.workspace, grace);
  }
  let ended: "timeout" | "interrupted" | null = null;
  const stop = (why: "timeout" | "interrupted") => {
    ended ??= why;
    program.kill();
  };
  const timer = setTimeout(() => stop("timeout"), timeoutMs);
  const onAbort = () => stop("interrupted");
  signal?.addEventListener("abort", onAbort, { once: true });
  let code: number, stdout: CappedText, stderr: CappedText;
  try {
    [code, stdout, stderr] = await Promise.all([
      program.exited,
      collectCapped(program.stdout, maxBytes),
      collectCapped(program.stderr, maxBytes),
    ]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
  const ms = Math.round(performance.now() - started);
  const killed = "the command and every process it started were killed";
  const header = ended === "timeout"
    ? `timed out after ${timeoutMs} ms: ${killed} · ${ms} ms`
    : ended === "interrupted"
    ? `interrupted: ${killed} · ${ms} ms`
    : `exit code ${code} · ${ms} ms`;
  const text = formatShellOutput(header, stdout, stderr, maxBytes);
  if (ended !== null) return { ok: false, error: { kind: ended, message: text } };
  return code === 0
    ? { ok: true, output: text }
    : { ok: false, error: { kind: "failed", message: text } };
}

function startSandboxed(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  grace: number,
): Started {
  return watchSandboxed(
    new Deno.Command(argv[0], {
      args: argv.slice(1),
      cwd,
      clearEnv: true,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn(),
    grace,
  );
}

function watchSandboxed(child: Deno.ChildProcess, grace: number): Started {
  let reaped = false;
  let stopping = false;
  const exited = child.status.then((status) => {
    reaped = true;
    return status.code;
  });
  return {
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    kill: () => {
      if (reaped || stopping) return;
      stopping = true;
      // SIGTERM the command's processes; the whole pid namespace dies with its pid 1 after.
      void terminateSandbox(child.pid, exited, grace);
    },
  };
}

/** util-linux's setsid: starts the command as the leader of a new process group. */
const SETSID = ["/usr/bin/setsid", "/bin/setsid"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/**
 * Unsandboxed: the command leads a process group of its own (util-linux `setsid`, spawned with
 * `Deno.Command`, about 4 ms cheaper per command than node's `detached` spawn, which forks), so
 * the whole group can be killed. Falls back to node's spawn where `setsid` is missing.
 */
function startUnconfined(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  grace: number,
): Started {
  if (SETSID === undefined) return startUnconfinedNode(argv, env, cwd, grace);
  const child = new Deno.Command(SETSID, {
    args: argv,
    cwd,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const killGroup = (signal: Deno.Signal = "SIGKILL") => {
    try {
      Deno.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  let exited = false;
  const stopReading = new AbortController();
  const status = child.status;
  return {
    // A process that left the group (its own setsid) may hold the pipes: a kill stops the reads.
    stdout: readUntil(child.stdout, stopReading.signal),
    stderr: readUntil(child.stderr, stopReading.signal),
    exited: status.then((status) => {
      exited = true;
      killGroup(); // background processes do not outlive the command, as in the sandbox
      return status.code;
    }),
    kill: () => {
      if (exited) return stopReading.abort();
      killGroup("SIGTERM");
      const timer = setTimeout(() => {
        if (!exited) killGroup();
        stopReading.abort();
      }, grace);
      void status.then(() => {
        clearTimeout(timer);
        stopReading.abort();
      });
    },
  };
}

/** Read `stream` until it ends or `signal` aborts (then cancel it, keeping what was read). */
async function* readUntil(
  stream: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  const aborted = new Promise<null>((resolve) => {
    if (signal.aborted) resolve(null);
    signal.addEventListener("abort", () => resolve(null), { once: true });
  });
  try {
    while (true) {
      const next = await Promise.race([reader.read(), aborted]);
      if (next === null || next.done) return;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function startUnconfinedNode(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  grace: number,
): Started {
  const child = spawn(argv[0], argv.slice(1), {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killGroup = (signal: NodeJS.Signals = "SIGKILL") => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  const exited = new Promise<number>((resolve) => {
    child.once("error", () => resolve(127)); // bash could not be started
    child.once("exit", (code, signal) => {
      killGroup(); // background processes do not outlive the command, as in the sandbox
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
  return {
    stdout: untilClosed(child.stdout),
    stderr: untilClosed(child.stderr),
    exited,
    kill: () => {
      killGroup("SIGTERM");
      setTimeout(() => {
        killGroup();
        // A process that left the group (setsid) may hold the pipes: stop reading them.
        child.stdout.destroy();
        child.stderr.destroy();
      }, grace);
    },
  };
}

/** Iterate a Node stream, ending quietly when it is destroyed. */
async function* untilClosed(stream: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* stream;
  } catch {
    // Destroyed by kill(): keep what was read.
  }
}
