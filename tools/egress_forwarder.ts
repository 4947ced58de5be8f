/**
 * The egress forwarder: inside a sandbox's own network namespace (only `lo`), it listens on
 * `127.0.0.1` and carries each TCP connection to the core's egress proxy, whose Unix socket is
 * bound into the sandbox. It understands nothing of HTTP: the proxy decides. No imports, so it
 * starts fast as a standalone program.
 *
 * As a program (`deno run --allow-net=127.0.0.1 --allow-read=<sock> --allow-write=<sock>
 * egress_forwarder.ts <sock>`) it prints the port it listens on, one line, once it listens.
 *
 * @module
 */

/** A running forwarder. */
export interface Forwarder {
  /** The loopback port it listens on. */
  port: number;
  /** Stop listening and cut every connection. */
  close(): void;
}

/**
 * Listen on `127.0.0.1` (an ephemeral port unless `port` is given) and forward every connection
 * to the Unix socket `socketPath`.
 *
 * @param socketPath the egress proxy's socket as seen inside the sandbox
 * @param port the loopback port, 0 for any free one. @default 0
 * @param hostname the loopback address to listen on. @default "127.0.0.1"
 * @returns the port and a way to stop
 * @throws what `Deno.listen` throws (e.g. `NotCapable` without `--allow-net=127.0.0.1`)
 *
 * @example Forward to a socket (nothing listens on it here, so connections just close)
 * ```ts
 * import { startForwarder } from "./egress_forwarder.ts";
 * const forwarder = startForwarder("/nonexistent/proxy.sock");
 * if (!(forwarder.port > 0)) throw new Error("no port");
 * forwarder.close();
 * ```
 */
export function startForwarder(
  socketPath: string,
  port = 0,
  hostname: "127.0.0.1" | "::1" = "127.0.0.1",
): Forwarder {
  const listener = Deno.listen({ hostname, port });
  const open = new Set<Deno.Conn>();
  const serve = async () => {
    try {
      for await (const conn of listener) {
        open.add(conn);
        void forward(conn, socketPath, open);
      }
    } catch {
      // The listener was closed.
    }
  };
  void serve();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    close: () => {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
      for (const conn of open) quietClose(conn);
    },
  };
}

async function forward(
  client: Deno.Conn,
  socketPath: string,
  open: Set<Deno.Conn>,
) {
  let proxy: Deno.Conn | null = null;
  try {
    proxy = await Deno.connect({ transport: "unix", path: socketPath });
    open.add(proxy);
    await Promise.all([pump(client, proxy), pump(proxy, client)]);
  } catch {
    // The proxy is gone: the client sees the connection close.
  } finally {
    for (const conn of [client, proxy]) {
      if (conn === null) continue;
      open.delete(conn);
      quietClose(conn);
    }
  }
}

async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  await from.readable.pipeTo(to.writable, { preventClose: true }).catch(
    () => {},
  );
  await to.closeWrite().catch(() => {});
}

function quietClose(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

if (import.meta.main) {
  const socketPath = Deno.args[0];
  if (!socketPath) {
    console.error("usage: egress_forwarder.ts <proxy socket>");
    Deno.exit(2);
  }
  const forwarder = startForwarder(socketPath);
  console.log(forwarder.port);
}
