/**
 * The shell tool's runner: one fresh sandbox per command (design §2).
 *
 * @module
 */
import { endPhase, startPhase } from "../_util/step_phase.ts";
import { MAX_SHELL_STREAM_BYTES } from "./builtin_tools.ts";
import { BWRAP_INSTALL_COMMAND } from "./find_bwrap.ts";
import type { PermissionSet } from "./permission_set.ts";
import { renderSandbox, type SandboxContext } from "./render_sandbox.ts";
import { renderDockerRun } from "./render_docker.ts";
import { currentUser } from "../_util/current_user.ts";
import type { ToolResult } from "./tool_broker.ts";
import { DEFAULT_KILL_GRACE_MS } from "./_terminate.ts";
import {
  startContainer,
  type Started,
  startSandboxed,
  startUnconfined,
  watchSandboxed,
} from "./_start_program.ts";
import { type SandboxStandby, STANDBY_LAUNCHER } from "./_sandbox_standby.ts";
import { type CappedText, collectCapped, formatShellOutput } from "./_shell_output.ts";
import { OdekError } from "../_util/odek_error.ts";

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
  /**
   * The call's egress credential (`EgressProxy.issue`), for a scope with network: the proxy
   * variables carry it. @default none
   */
  egressToken?: string;
  /**
   * The command starts only once this resolves (the journal's `tool_started` on disk, design
   * §8.3); rendering the sandbox and taking a spare overlap the wait. When it rejects, nothing
   * runs (a taken spare is killed) and `runShell` rejects with its reason. @default start at once
   */
  ready?: Promise<void>;
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
 * `interrupted`; `bwrap` mode without bwrap → `sandbox_unavailable` (nothing runs). In bwrap, the
 * sandbox's check speaks first on stderr (`SandboxCheckVerdict`): its `passed` token is not part
 * of the output, and a check that failed throws `PATH_CHANGED` (the broker's refusal). Nothing
 * the command prints, nor its exit code, can do that.
 *
 * @param command the bash command, passed as one argv element
 * @param options scope, context, timeout, abort signal, stream cap
 * @returns the tool result; never rejects for command failures
 * @throws {RangeError} when the scope cannot be rendered (see {@linkcode renderSandbox})
 * @throws {OdekError} `PATH_CHANGED` when a bind changed while it was pinned, or the sandbox's
 *   check found a mount or the working directory not what was pinned (nothing of the command ran)
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
          `Cannot run shell commands as bwrap is not installed: run "${BWRAP_INSTALL_COMMAND}" as root, or set "sandbox" to "docker" (a container from Dockerfile.odek) or "none" (unsandboxed) in ODEK_HOME/config.jsonc`,
      },
    };
  }
  if (context.mode === "docker" && !context.dockerPath) {
    return {
      ok: false,
      error: {
        kind: "sandbox_unavailable",
        message:
          `Cannot run shell commands as sandbox is "docker" and the docker client is not installed: install Docker, or set "sandbox" to "bwrap" (${BWRAP_INSTALL_COMMAND}) in ODEK_HOME/config.jsonc`,
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
  const rendering = startPhase();
  const viaStandby = context.mode === "bwrap" && options.standby !== undefined;
  const name = `odek-${crypto.randomUUID()}`;
  const { argv, env } = context.mode === "docker"
    ? renderDockerRun(set, context, ["bash", "-c", command], { name, ...(await currentUser()) })
    : renderSandbox(set, context, {
      kind: "program",
      argv: ["bash", "-c", viaStandby ? STANDBY_LAUNCHER : command],
      // A spare is started before its call has a credential: it gets it with the command.
      ...(options.egressToken && !viaStandby ? { egressToken: options.egressToken } : {}),
    });
  endPhase("shell:render", rendering);
  let started = performance.now();
  let program: Started;
  if (viaStandby) {
    const taking = startPhase();
    const spec = { argv, env, cwd: context.workspace };
    const child = await options.standby!.take(spec);
    endPhase("shell:take-spare", taking);
    program = watchSandboxed(child, grace);
    // A spare does nothing before its command arrives: it waits for `ready` here, taken.
    const waited = options.ready && await waitUntilReady(options, () => discard(child, program));
    if (waited) return waited;
    started = performance.now();
    const writer = child.stdin.getWriter();
    const token = options.egressToken ?? "";
    await writer.write(new TextEncoder().encode(`${command}\0${token}\0`)).catch(() => {});
    await writer.close().catch(() => {});
    // The next spare is spawned while this command runs (the spawn blocks the thread).
    options.standby!.refill(spec);
  } else {
    const waited = options.ready && await waitUntilReady(options, () => Promise.resolve());
    if (waited) return waited;
    started = performance.now();
    program = context.mode === "bwrap"
      ? startSandboxed(argv, env, context.workspace, grace)
      : context.mode === "docker"
      ? startContainer(argv, env, name)
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
  if (signal?.aborted) stop("interrupted"); // aborted while the command was being handed over
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
  endPhase("shell:command", started);
  const check = program.check?.verdict;
  if (check?.type === "refused") throw new OdekError("PATH_CHANGED", check.reason);
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

/**
 * Wait for `options.ready`: `undefined` to go on, or the result of a call interrupted while it
 * waited (after `cleanUp`). @throws the reason `ready` rejected with, after `cleanUp`
 */
async function waitUntilReady(
  options: RunShellOptions,
  cleanUp: () => Promise<void>,
): Promise<ToolResult | undefined> {
  try {
    await options.ready;
  } catch (error) {
    await cleanUp();
    throw error;
  }
  if (!options.signal?.aborted) return undefined;
  await cleanUp();
  return {
    ok: false,
    error: { kind: "interrupted", message: "The command was interrupted before it started" },
  };
}

/** Kill a taken spare that never got its command, and release its pipes. */
async function discard(child: Deno.ChildProcess, program: Started): Promise<void> {
  program.kill();
  await program.exited;
  const stderr = program.stderr instanceof ReadableStream ? program.stderr : child.stderr;
  await Promise.all([child.stdout.cancel(), stderr.cancel()]).catch(() => {});
  await child.stdin.close().catch(() => {});
}
