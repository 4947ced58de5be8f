/**
 * A TCP proxy on 127.0.0.1 that drops its first connections before any response, then passes
 * the rest through: the "connection reset" fault that an HTTP server cannot script itself.
 *
 * @module
 */

/** Options for {@linkcode startResetProxy}. */
export interface ResetProxyOptions {
  /** The base URL to pass through to, e.g. a fake server's `http://127.0.0.1:PORT/v1`. */
  target: string;
  /** Connections to drop before passing the rest through. @default 1 */
  resets?: number;
  /** Stop by itself after this many milliseconds without a connection. @default 120_000 */
  idleTimeoutMs?: number;
}

/** A running proxy. */
export interface ResetProxy {
  /** The base URL to give a client: the target's path on the proxy's port. */
  url: string;
  /** Connections dropped so far. */
  readonly resetCount: number;
  /** Stops accepting and closes every connection; idempotent. */
  close(): Promise<void>;
  /** Same as {@linkcode ResetProxy.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the proxy. A dropped connection reads the first bytes of the request and closes with
 * the rest unread, so the client sees the connection reset (or closed) before any response.
 *
 * @param options the target, how many connections to drop, and the idle timeout
 * @returns the running proxy; close it (or `await using`) when done
 *
 * @example Drop the first request, pass the second
 * ```ts
 * import { startResetProxy, type ResetProxyOptions } from "./reset_proxy.ts";
 * import { startFakeOpenAIServer } from "./fake_openai_server.ts";
 * await using server = await startFakeOpenAIServer({ turns: [] });
 * const options: ResetProxyOptions = { target: server.url, resets: 1 };
 * await using proxy = await startResetProxy(options);
 * const first = await fetch(`${proxy.url}/models`).then(() => "answered", () => "dropped");
 * const second = await fetch(`${proxy.url}/models`).then((r) => r.json());
 * if (first !== "dropped" || second.data[0].id !== "fake-model") throw new Error("unexpected");
 * ```
 */
export function startResetProxy(options: ResetProxyOptions): Promise<ResetProxy> {
  const target = new URL(options.target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  let remaining = options.resets ?? 1;
  let resetCount = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      clearTimeout(idle);
      listener.close();
      for (const conn of open) closeQuietly(conn);
      await Promise.resolve();
    })();
    return closed;
  };
  const armIdle = () => {
    clearTimeout(idle);
    idle = setTimeout(() => void close(), options.idleTimeoutMs ?? 120_000);
    idle.unref();
  };
  const serve = async (conn: Deno.Conn) => {
    open.add(conn);
    try {
      if (remaining > 0) {
        remaining--;
        resetCount++;
        await conn.read(new Uint8Array(16));
        return;
      }
      const upstream = await Deno.connect({
        hostname: target.hostname,
        port: Number(target.port),
      });
      open.add(upstream);
      await Promise.allSettled([
        conn.readable.pipeTo(upstream.writable),
        upstream.readable.pipeTo(conn.writable),
      ]);
      open.delete(upstream);
    } catch {
      // A client or upstream that went away ends this connection only.
    } finally {
      open.delete(conn);
      closeQuietly(conn);
    }
  };
  (async () => {
    armIdle();
    try {
      for await (const conn of listener) {
        armIdle();
        void serve(conn);
      }
    } catch {
      // The listener was closed.
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return Promise.resolve({
    url: `http://127.0.0.1:${port}${target.pathname.replace(/\/+$/, "")}`,
    get resetCount() {
      return resetCount;
    },
    close,
    [Symbol.asyncDispose]: close,
  });
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed (pipeTo closes both ends when a side finishes).
  }
}
