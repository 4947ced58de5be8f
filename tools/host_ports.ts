/**
 * The host-port forwarder (issue 13): run by odek inside its session host's network namespace
 * (the namespace every program of the host joins), it listens on `127.0.0.1:<port>` and
 * `[::1]:<port>` for each granted host port and carries each connection to a Unix socket the core
 * listens on, where the core connects to the host's own `127.0.0.1:<port>`. Holding the ports
 * first, it keeps a program in the namespace from binding them. No imports.
 *
 * As a program: `deno run --allow-net=127.0.0.1,[::1] --allow-read=<dir> --allow-write=<dir>
 * host_ports.ts <port>=<socket> …`; it prints `ready` once every port listens.
 *
 * @module
 */
import { startForwarder } from "./egress_forwarder.ts";

/**
 * Start one forwarder per `port=socket` pair, on IPv4 and (where the namespace has it) IPv6
 * loopback.
 *
 * @param pairs `[port, socket path]` pairs
 * @returns a function that stops them all
 * @throws what `Deno.listen` throws for an IPv4 port (e.g. `AddrInUse`)
 *
 * @example
 * ```ts
 * import { forwardHostPorts } from "./host_ports.ts";
 * const stop = forwardHostPorts([]);
 * stop();
 * ```
 */
export function forwardHostPorts(pairs: readonly [number, string][]): () => void {
  const stops: (() => void)[] = [];
  for (const [port, socket] of pairs) {
    stops.push(startForwarder(socket, port).close);
    try {
      stops.push(startForwarder(socket, port, "::1").close);
    } catch {
      // No IPv6 loopback in this namespace: nothing can bind [::1] there either.
    }
  }
  return () => stops.forEach((stop) => stop());
}

if (import.meta.main) {
  const pairs: [number, string][] = [];
  for (const arg of Deno.args) {
    const m = /^(\d{1,5})=(\/.+)$/.exec(arg);
    if (!m) {
      console.error(`usage: host_ports.ts <port>=<socket> …, got ${arg}`);
      Deno.exit(2);
    }
    pairs.push([Number(m[1]), m[2]]);
  }
  forwardHostPorts(pairs);
  console.log("ready");
}
