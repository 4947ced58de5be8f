/**
 * Starting a shell command's program (private to `broker/`): in a bwrap sandbox, in a docker
 * container, or unconfined in a process group of its own; each returns a {@linkcode Started}.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { terminateSandbox } from "./_terminate.ts";
import { SandboxCheckVerdict } from "./_sandbox_check_verdict.ts";

/** A started program, whatever started it. */
export interface Started {
  stdout: AsyncIterable<Uint8Array>;
  stderr: AsyncIterable<Uint8Array>;
  /** Resolves with the exit code once the program has exited (and, unsandboxed, its group died). */
  exited: Promise<number>;
  /** SIGTERM everything the command started, SIGKILL after the grace. Safe to call twice. */
  kill(): void;
  /** In a bwrap sandbox: its check's word, read off `stderr` (which no longer holds it). */
  check?: SandboxCheckVerdict;
}

export function startSandboxed(
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

/** A bwrap sandbox's process (its check runs first): `check` reads the check's word. */
export function watchSandboxed(child: Deno.ChildProcess, grace: number): Started {
  const check = new SandboxCheckVerdict();
  let reaped = false;
  let stopping = false;
  const exited = child.status.then((status) => {
    reaped = true;
    return status.code;
  });
  return {
    stdout: child.stdout,
    stderr: child.stderr.pipeThrough(check),
    check,
    exited,
    kill: () => {
      if (reaped || stopping) return;
      stopping = true;
      // SIGTERM the command's processes; the whole pid namespace dies with its pid 1 after.
      void terminateSandbox(child.pid, exited, grace);
    },
  };
}

/**
 * A `docker run` client: killing the client does not stop the container, so a kill also runs
 * `docker kill <name>` (the container's `--init` then takes every process in it down) and stops
 * reading the client's pipes.
 */
export function startContainer(argv: string[], env: Record<string, string>, name: string): Started {
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let exited = false;
  const stopReading = new AbortController();
  return {
    stdout: readUntil(child.stdout, stopReading.signal),
    stderr: readUntil(child.stderr, stopReading.signal),
    exited: child.status.then((status) => {
      exited = true;
      return status.code;
    }),
    kill: () => {
      if (!exited) {
        new Deno.Command(argv[0], {
          args: ["kill", name],
          clearEnv: true,
          env,
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).output().catch(() => {});
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
      stopReading.abort();
    },
  };
}

/** util-linux's setsid: starts the command as the leader of a new process group. */
export const SETSID: string | undefined = ["/usr/bin/setsid", "/bin/setsid"].find((path) => {
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
export function startUnconfined(
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
