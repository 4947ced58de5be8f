/**
 * Long-lived stdio programs (MCP servers) started by the broker (design §8.7): each in a sandbox
 * rendered by {@linkcode renderSandbox} like a shell command's, in a process group of its own,
 * its stderr appended to a log file, and the whole tree killed when it is stopped or the broker
 * closes. The MCP client (`src/mcp/`) speaks the protocol over the returned pipes.
 *
 * @module
 */
import { dirname, isAbsolute, normalize } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { isInside } from "../config/validate_workspace.ts";
import type { PermissionSet } from "./permission_set.ts";
import { renderSandbox, type SandboxContext } from "./render_sandbox.ts";
import { SandboxCheckVerdict } from "./_sandbox_check_verdict.ts";
import { SETSID } from "./_start_program.ts";
import { DEFAULT_KILL_GRACE_MS, terminateSandbox } from "./_terminate.ts";
import { killSandbox } from "./_kill_sandbox.ts";

/** What to start: the program, its environment and its scope. Paths are absolute real paths. */
export interface StdioServerSpec {
  /** Names the server in messages, e.g. `filesystem`. */
  name: string;
  /** The program and its arguments; the program absolute or found on the sandbox's `PATH`. */
  argv: string[];
  /**
   * Variables besides the sandbox's base set (`PATH`, `HOME`, `PWD`, `LANG`, `TMPDIR`, …), which
   * they never replace. The caller filters secrets. @default {}
   */
  env?: Record<string, string>;
  /** Read-only besides `/` and the workspace (a program installed under the home). @default [] */
  readPaths?: string[];
  /** Writable paths; the workspace among them makes it writable. @default [] (read-only) */
  writePaths?: string[];
  /** Network through the broker's egress proxy (`HTTP(S)_PROXY`); otherwise only `lo`. @default false */
  network?: boolean;
  /** Where stderr is appended (created 0600, its directory 0700). */
  logFile: string;
  /** The egress allow-list when `network` is on. @default [] (any public destination) */
  allowDomains?: string[];
}

/** A running server: its pipes, its exit, and a way to stop it with everything it started. */
export interface StdioServerProcess extends AsyncDisposable {
  /** The spawned process (bwrap's pid when sandboxed): it leads its own process group. */
  readonly pid: number;
  /** The program's standard input. */
  readonly stdin: WritableStream<Uint8Array>;
  /** The program's standard output. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** The log file its stderr goes to. */
  readonly logFile: string;
  /** Resolves once it has exited (the exit code; 128 + n for signal n). */
  readonly exited: Promise<number>;
  /**
   * Close its stdin, wait up to `graceMs` for it to exit, then SIGTERM every process it started
   * and SIGKILL what is left after another `graceMs` (MCP's stdio shutdown). Idempotent.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Bytes of stderr one server process may append to its log; the rest is dropped with a note. */
export const MAX_SERVER_LOG_BYTES = 8 * 1024 * 1024;

/**
 * The servers one broker started: each started in its sandbox and stopped by
 * {@linkcode StdioServers.close}.
 *
 * @example Start `cat` unsandboxed, talk to it, stop everything
 * ```ts
 * import { StdioServers } from "./stdio_server.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * const context = { mode: "none" as const, bwrapPath: null, denoPath: Deno.execPath(), denoDir: "/nonexistent",
 *   toolsDir: "/nonexistent", workspace: dir, home: dir, odekHome: `${dir}/.odek`, installDir: "/nonexistent",
 *   protectedRoots: [], readOnlyHomeFiles: [] };
 * const servers = new StdioServers();
 * const cat = await servers.start({ name: "cat", argv: ["cat"], logFile: `${dir}/cat.log` }, context);
 * const writer = cat.stdin.getWriter();
 * await writer.write(new TextEncoder().encode("ping\n"));
 * writer.releaseLock();
 * const { value } = await cat.stdout.getReader().read();
 * if (new TextDecoder().decode(value) !== "ping\n") throw new Error("no echo");
 * await servers.close();
 * await cat.exited;
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class StdioServers {
  readonly #running = new Set<StdioServerProcess>();
  #closed = false;

  /**
   * Start `spec` in a sandbox for `context`.
   *
   * @param spec the program and its scope
   * @param context the broker's context with the validated workspace
   * @returns the running server
   * @throws {OdekError} `SANDBOX_UNAVAILABLE` (bwrap mode without bwrap, docker mode without
   *   bwrap, no setsid), `CONFIG_INVALID` for a path that is not absolute, missing, or inside a
   *   protected root, `PATH_CHANGED` from the renderer, `TOOL_CHILD_FAILED` when the program
   *   cannot be spawned, or the broker is closed
   */
  async start(spec: StdioServerSpec, context: SandboxContext): Promise<StdioServerProcess> {
    if (this.#closed) {
      throw new OdekError(
        "TOOL_CHILD_FAILED",
        `Cannot start MCP server ${spec.name}: the session is closing`,
      );
    }
    const server = await startStdioServer(spec, context);
    this.#running.add(server);
    void server.exited.then(() => this.#running.delete(server));
    return server;
  }

  /** Stop every server still running. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#running].map((server) => server.stop(500)));
  }
}

/**
 * Start one stdio server (see {@linkcode StdioServers.start}). Its scope: `/` read-only as in
 * every sandbox, the workspace read-only (writable when `writePaths` names it), `readPaths`
 * read-only, `writePaths` writable, no network unless `network` (then only the egress proxy),
 * the protected roots hidden, every descriptor above 2 closed and every mount checked before the
 * program starts. It leads a new session (util-linux `setsid`), so the whole group can be killed
 * (`sandbox: "none"`); inside bwrap the pid namespace dies with the program.
 */
export async function startStdioServer(
  spec: StdioServerSpec,
  context: SandboxContext,
): Promise<StdioServerProcess> {
  const what = `MCP server ${spec.name}`;
  if (spec.argv.length === 0 || spec.argv[0] === "") {
    throw new OdekError("CONFIG_INVALID", `Cannot start ${what}: its command is empty`);
  }
  if (SETSID === undefined) {
    throw new OdekError(
      "SANDBOX_UNAVAILABLE",
      `Cannot start ${what}: setsid (util-linux) is missing. Install util-linux.`,
    );
  }
  let mode = context.mode;
  if (mode === "docker") {
    if (context.bwrapPath === null) {
      throw new OdekError(
        "SANDBOX_UNAVAILABLE",
        `Cannot start ${what}: with "sandbox": "docker" MCP stdio servers still run in bwrap, which is not installed. Install it with: apt-get install bubblewrap (or set "sandbox" to "none").`,
      );
    }
    mode = "bwrap";
  }
  const reads = await checkPaths(spec.readPaths ?? [], "readPaths", what, [context.odekHome]);
  const writes = await checkPaths(
    spec.writePaths ?? [],
    "writablePaths",
    what,
    context.protectedRoots,
  );
  const set: PermissionSet = {
    readPaths: reads,
    writePaths: writes,
    network: spec.network
      ? { type: "proxy", allowDomains: spec.allowDomains ?? [] }
      : { type: "none" },
    runBinaries: [],
    envNames: [],
  };
  const { argv, env, check } = renderSandbox(set, { ...context, mode, extraEnv: spec.env ?? {} }, {
    kind: "program",
    argv: spec.argv,
  });
  await Deno.mkdir(dirname(spec.logFile), { recursive: true, mode: 0o700 });
  const log = await Deno.open(spec.logFile, {
    append: true,
    create: true,
    mode: 0o600,
  });
  await log.write(
    new TextEncoder().encode(
      `--- ${new Date().toISOString()} started: ${JSON.stringify(spec.argv)}\n`,
    ),
  ).catch(() => 0);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(SETSID, {
      args: argv,
      cwd: context.workspace,
      clearEnv: true,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    log.close();
    throw new OdekError(
      "TOOL_CHILD_FAILED",
      `Cannot start ${what}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const pid = child.pid;
  const group = (signal: Deno.Signal) => {
    try {
      Deno.kill(-pid, signal);
    } catch {
      // The group is gone.
    }
  };
  let reaped = false;
  const exited = child.status.then((status) => {
    reaped = true;
    group("SIGKILL"); // what it left in its group does not outlive it
    return status.signal ? 128 + signalNumber(status.signal) : status.code;
  });
  // The sandbox check's word is not the server's: its log starts with what the server wrote.
  const stderr = check ? child.stderr.pipeThrough(new SandboxCheckVerdict()) : child.stderr;
  const logged = pumpLog(stderr, log).finally(() => {
    try {
      log.close();
    } catch {
      // closed
    }
  });
  let stopping: Promise<void> | undefined;
  const stop = (graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> => {
    stopping ??= (async () => {
      await child.stdin.close().catch(() => {});
      if (await within(exited, graceMs)) return;
      if (mode === "none") {
        group("SIGTERM");
        if (!(await within(exited, graceMs)) && !reaped) group("SIGKILL");
      } else if (!reaped) {
        await terminateSandbox(pid, exited, graceMs);
        if (!reaped) await killSandbox(pid);
      }
      await exited;
      await logged;
    })();
    return stopping;
  };
  return {
    pid,
    stdin: child.stdin,
    stdout: child.stdout,
    logFile: spec.logFile,
    exited,
    stop,
    [Symbol.asyncDispose]: () => stop(),
  };
}

/** Absolute, normalised, existing real paths, none inside `forbidden`. */
async function checkPaths(
  paths: readonly string[],
  key: string,
  what: string,
  forbidden: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const path of paths) {
    if (!isAbsolute(path) || normalize(path) !== path) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot start ${what}: ${key} entry ${JSON.stringify(path)} is not an absolute path`,
      );
    }
    let real: string;
    try {
      real = await Deno.realPath(path);
    } catch (error) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot start ${what}: ${key} entry ${path} cannot be used (${
          (error as Error).message
        }). Create it or remove it from the server's configuration.`,
      );
    }
    // A readable parent of a protected root is fine (the root stays hidden under its tmpfs); a
    // writable one could move the hidden directory away.
    const root = forbidden.find((r) =>
      isInside(real, r) || (key !== "readPaths" && isInside(r, real))
    );
    if (root !== undefined) {
      throw new OdekError(
        "CONFIG_INVALID",
        `Cannot start ${what}: ${key} entry ${path} overlaps odek's protected directory ${root}, which no sandbox may ${
          key === "readPaths" ? "see" : "write"
        }. Remove it from the server's configuration.`,
      );
    }
    out.push(real);
  }
  return out;
}

/** Append stderr to the log, at most {@linkcode MAX_SERVER_LOG_BYTES}. */
async function pumpLog(stream: ReadableStream<Uint8Array>, log: Deno.FsFile): Promise<void> {
  let written = 0;
  let capped = false;
  try {
    for await (const chunk of stream) {
      if (capped) continue;
      const room = MAX_SERVER_LOG_BYTES - written;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      written += part.length;
      await writeAll(log, part);
      if (written >= MAX_SERVER_LOG_BYTES) {
        capped = true;
        await writeAll(
          log,
          new TextEncoder().encode(
            `\n--- odek: this server's stderr passed ${MAX_SERVER_LOG_BYTES} bytes; the rest is dropped\n`,
          ),
        );
      }
    }
  } catch {
    // The pipe broke or the log cannot be written: stderr is only diagnostics.
  }
}

async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += await file.write(bytes.subarray(done));
}

async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const result = await Promise.race([
    promise.then(() => true, () => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]);
  clearTimeout(timer);
  return result;
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
