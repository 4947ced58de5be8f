/**
 * The network namespace of one session host (design §2, §8.1; issue 13): every program of the
 * host — shell commands and background jobs — joins it, so a server a background job started
 * answers a later command, while the namespace has only `lo` and no route out. A holder process
 * keeps it alive: bwrap with `--unshare-net` (which brings `lo` up) running `sleep`, or, when
 * host ports are granted, odek's host-port forwarder (`tools/host_ports.ts`), which holds
 * `127.0.0.1:<port>` inside and carries each connection to a Unix socket the core listens on, where
 * the core connects to the host's own `127.0.0.1:<port>`. Programs join it with util-linux
 * `nsenter --net=/proc/<holder>/ns/net`, and the check inside each sandbox compares the namespace
 * it is in with the holder's (its inode).
 *
 * @module
 */
import { join } from "node:path";
import { killSandbox } from "./_kill_sandbox.ts";

/** Options for {@linkcode HostNetwork.start}. */
export interface HostNetworkOptions {
  bwrapPath: string;
  /** util-linux nsenter. @default the first of /usr/bin/nsenter, /bin/nsenter that exists */
  nsenterPath?: string;
  /** The deno running the host-port forwarder. */
  denoPath: string;
  /** odek's `tools/` (holds `host_ports.ts` and `egress_forwarder.ts`). */
  toolsDir: string;
  /** Host ports programs may reach on `127.0.0.1` (`--allow-host-port`). @default [] */
  hostPorts?: readonly number[];
  /** A private directory (0700) for the host-port sockets; needed when there are host ports. */
  socketDir?: string;
  /** Give up on the holder after this many milliseconds. @default 10_000 */
  startTimeoutMs?: number;
}

/** util-linux's nsenter, where it is installed. */
export const NSENTER: string | undefined = ["/usr/bin/nsenter", "/bin/nsenter"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/** How the holder reports itself: its pid and its namespace's inode, then (with ports) `ready`. */
const HOLDER = `ns=$(readlink /proc/self/ns/net); echo "$$ \${ns//[!0-9]/}"
if [ $# -gt 0 ]; then exec "$@"; fi
exec sleep infinity`;

/**
 * One session host's network namespace, alive until {@linkcode HostNetwork.close}.
 *
 * @example Start one where bwrap and nsenter work (as root), else say why not
 * ```ts ignore
 * import { HostNetwork } from "./host_network.ts";
 * const started = await HostNetwork.start({ bwrapPath: "/usr/bin/bwrap", denoPath: Deno.execPath(), toolsDir: "/opt/odek/tools" });
 * if (started instanceof HostNetwork) await started.close();
 * else console.log(started.reason);
 * ```
 */
export class HostNetwork implements AsyncDisposable {
  /** The argv prefix that runs a program in the namespace. */
  readonly enter: readonly string[];
  /** The namespace's inode (as the sandbox check compares it). */
  readonly ino: string;
  /** The granted host ports. */
  readonly hostPorts: readonly number[];
  #holder: Deno.ChildProcess;
  #listeners: Deno.Listener[];
  #conns = new Set<Deno.Conn>();
  #alive = true;

  private constructor(
    holder: Deno.ChildProcess,
    enter: string[],
    ino: string,
    hostPorts: readonly number[],
    listeners: Deno.Listener[],
  ) {
    this.#holder = holder;
    this.enter = enter;
    this.ino = ino;
    this.hostPorts = hostPorts;
    this.#listeners = listeners;
    void holder.status.then(() => (this.#alive = false));
  }

  /** Whether the holder still runs (when it does not, programs must not join by its pid). */
  get alive(): boolean {
    return this.#alive;
  }

  /**
   * Start the holder and check that a program can join its namespace.
   *
   * @returns the namespace, or why programs of this host cannot share one (they then get one
   *   namespace each, and granted host ports are unreachable)
   */
  static async start(options: HostNetworkOptions): Promise<HostNetwork | { reason: string }> {
    const nsenter = options.nsenterPath ?? NSENTER;
    if (nsenter === undefined) {
      return { reason: "util-linux nsenter is not installed (apt-get install util-linux)" };
    }
    const ports = [...new Set(options.hostPorts ?? [])].sort((a, b) => a - b);
    const listeners: Deno.Listener[] = [];
    const conns = new Set<Deno.Conn>();
    const forward: string[] = [];
    try {
      for (const port of ports) {
        if (options.socketDir === undefined) throw new Error("host ports need a socket directory");
        const path = join(options.socketDir, `${port}.sock`);
        const listener = Deno.listen({ transport: "unix", path });
        listeners.push(listener);
        void serveHostPort(listener, port, conns);
        forward.push(`${port}=${path}`);
      }
    } catch (error) {
      for (const listener of listeners) listener.close();
      return { reason: `cannot listen for host ports: ${(error as Error).message}` };
    }
    const inner = forward.length === 0 ? [] : [
      "env",
      "-i",
      "DENO_DIR=/run/odek-deno",
      "DENO_NO_UPDATE_CHECK=1",
      options.denoPath,
      "run",
      "--no-prompt",
      "--no-remote",
      "--no-config",
      "--no-lock",
      `--allow-net=127.0.0.1,[::1],${
        forward.map((pair) => `unix:${pair.split("=")[1]}`).join(",")
      }`,
      `--allow-read=${options.socketDir}`,
      `--allow-write=${options.socketDir}`,
      join(options.toolsDir, "host_ports.ts"),
      ...forward,
    ];
    const holder = new Deno.Command(options.bwrapPath, {
      args: [
        "--die-with-parent",
        "--new-session",
        "--unshare-net",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/run",
        "--chdir",
        "/",
        "--",
        "/bin/bash",
        "-c",
        HOLDER,
        "odek-netns",
        ...inner,
      ],
      clearEnv: true,
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const fail = async (reason: string) => {
      await killSandbox(holder.pid).catch(() => {});
      await holder.status;
      for (const listener of listeners) listener.close();
      return { reason };
    };
    const lines = readLines(holder.stdout);
    const timeout = options.startTimeoutMs ?? 10_000;
    const first = await within(lines.next(), timeout);
    const m = first === null ? null : /^(\d+) (\d+)$/.exec(first);
    if (m === null) {
      return await fail(`the namespace holder did not start (${first ?? "no answer"})`);
    }
    if (forward.length > 0 && (await within(lines.next(), timeout)) !== "ready") {
      return await fail("the host-port forwarder did not start");
    }
    void drain(holder.stderr);
    const enter = [nsenter, `--net=/proc/${m[1]}/ns/net`, "--"];
    const probe = await new Deno.Command(enter[0], {
      args: [...enter.slice(1), "/bin/true"],
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output().catch((error) => ({ code: -1, stderr: new TextEncoder().encode(String(error)) }));
    if (probe.code !== 0) {
      const why = new TextDecoder().decode(probe.stderr).trim().split("\n")[0];
      return await fail(`a program cannot join the namespace (${why || `exit ${probe.code}`})`);
    }
    const network = new HostNetwork(holder, enter, m[2], ports, listeners);
    network.#conns = conns;
    return network;
  }

  /** Stop the holder and the host-port sockets. Idempotent. */
  async close(): Promise<void> {
    for (const listener of this.#listeners) {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
    }
    for (const conn of this.#conns) quietClose(conn);
    if (this.#alive) await killSandbox(this.#holder.pid).catch(() => {});
    await this.#holder.status;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Carry each connection from the namespace to the host's own `127.0.0.1:<port>`. */
async function serveHostPort(listener: Deno.Listener, port: number, conns: Set<Deno.Conn>) {
  try {
    for await (const inside of listener) {
      conns.add(inside);
      void (async () => {
        let host: Deno.Conn | null = null;
        try {
          host = await Deno.connect({ hostname: "127.0.0.1", port });
          conns.add(host);
          await Promise.all([pump(inside, host), pump(host, inside)]);
        } catch {
          // The host's service is not there: the program sees the connection close.
        } finally {
          for (const conn of [inside, host]) {
            if (conn === null) continue;
            conns.delete(conn);
            quietClose(conn);
          }
        }
      })();
    }
  } catch {
    // Closed.
  }
}

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  await from.readable.pipeTo(to.writable, { preventClose: true }).catch(() => {});
  await to.closeWrite().catch(() => {});
}

function quietClose(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
    }
  }
}

async function within(
  next: Promise<IteratorResult<string>>,
  ms: number,
): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    const result = await Promise.race([next, timeout]);
    return result === null || result.done ? null : result.value;
  } finally {
    clearTimeout(timer);
  }
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<void> {
  try {
    for await (const _ of stream) { /* the holder has nothing to say; keep its pipe open */ }
  } catch {
    // Gone.
  }
}
