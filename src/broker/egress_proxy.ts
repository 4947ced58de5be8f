/**
 * The egress proxy run by the core (design §2): the only way out of a sandbox granted network.
 *
 * @module
 */
import { lookup } from "node:dns/promises";
import { dirname, join } from "node:path";
import { checkAddress } from "../_util/check_address.ts";
import { matchAllowDomains } from "../_util/match_allow_domains.ts";
import { matchDenyDomain } from "../_util/match_deny_domain.ts";
import { parseProxyRequest } from "./_proxy_request.ts";
import { sweepStaleEgress } from "./_sweep_stale_egress.ts";
import {
  closeQuietly,
  concat,
  MAX_CONNECTIONS,
  pump,
  readHead,
  refuseBusy,
  reply,
  within,
  writeAll,
} from "./_proxy_io.ts";

/**
 * One destination the proxy was asked for, and what it decided.
 *
 * @example Log each destination
 * ```ts
 * import type { EgressDecision } from "./egress_proxy.ts";
 * const decision: EgressDecision = { host: "127.0.0.1", port: 443, allowed: false, reason: "loopback address" };
 * const line = `${decision.allowed ? "allowed" : "refused"} ${decision.host}:${decision.port}`;
 * if (line !== "refused 127.0.0.1:443") throw new Error(line);
 * ```
 */
export interface EgressDecision {
  /** The host as the client named it (a name or an IP literal, without brackets). */
  host: string;
  /** The port asked for. */
  port: number;
  /** The address connected to (allowed), or the refused address when one was resolved. */
  address?: string;
  /** Whether the proxy let the connection through. */
  allowed: boolean;
  /** Why it was refused, or why the allowed connection failed. */
  reason?: string;
}

/** Options for {@linkcode EgressProxy.start}. */
export interface EgressProxyOptions {
  /** `network.allowDomains`: when not empty, only these domains (and names below them). @default [] */
  allowDomains?: readonly string[];
  /**
   * `deny.domains` of the user and project layers: these hosts are refused even when a call's
   * network part was approved (`*` refuses every host; `*.example.com` it and every name below;
   * else exactly that host). @default []
   */
  denyDomains?: readonly string[];
  /** Called once per destination, allowed or refused. Must not throw. */
  onDecision?: (decision: EgressDecision) => void;
  /** Append one line per destination to this file (created 0600). @default no log file */
  logFile?: string;
  /**
   * Resolve a host to its addresses. @default node's `dns.lookup` with `all: true`: the system
   * resolver (getaddrinfo), so `/etc/hosts` and nsswitch count; `Deno.resolveDns` would not
   */
  resolve?: (host: string) => Promise<string[]>;
  /**
   * Open the connection to a checked address. A seam for tests, which cannot reach a public
   * address. @default `Deno.connect({ hostname: address, port })`
   */
  connect?: (address: string, port: number) => Promise<Deno.Conn>;
  /** Give up connecting to the destination after this many milliseconds. @default 15_000 */
  connectTimeoutMs?: number;
  /** Where the socket's private directory is created. @default the system temp directory */
  dir?: string;
  /**
   * This machine's own addresses, read again for every decision (interfaces come and go):
   * each is refused, so a service bound to `0.0.0.0` is not reachable through the host's
   * non-loopback address. A seam for tests. @default the addresses of `Deno.networkInterfaces()`
   * (needs `--allow-sys=networkInterfaces`; without it every destination is refused)
   */
  hostAddresses?: () => readonly string[];
  /**
   * Require a live credential on {@linkcode EgressProxy.socketPath}: each request must carry,
   * as the password of its `Proxy-Authorization: Basic` header, a token from
   * {@linkcode EgressProxy.issue} not yet revoked (programs of one session host share a loopback,
   * so a sibling could otherwise use another call's forwarder). Requests on
   * {@linkcode EgressProxy.trustedSocketPath} (odek's own web tool children, whose namespace is
   * their own) need none. @default false
   */
  credentials?: boolean;
}

/** A per-call egress credential: valid until revoked. */
export interface EgressCredential {
  /** The token (the password of the proxy URL's userinfo; the user name is ignored). */
  readonly token: string;
  /** Refuse the token from now on and cut every connection opened with it. Idempotent. */
  revoke(): void;
}

/**
 * An HTTP proxy on a Unix socket (`CONNECT host:port` for HTTPS and other TCP, absolute-URI
 * requests for plain HTTP) that resolves each destination with the system resolver, refuses it
 * when the host is outside the allow-list or any resolved address is refused by
 * `checkAddress` (the IANA special-purpose blocks, and this machine's own interface addresses,
 * listed again for every decision), and otherwise connects to the address it checked (never resolving again, so
 * DNS rebinding cannot swap it). Every destination is reported (`onDecision`) and logged.
 * A refusal is `403` with `X-Odek-Egress: refused` and the reason as the body.
 *
 * @example Refuse a loopback destination
 * ```ts
 * import { EgressProxy } from "./egress_proxy.ts";
 * const decisions: unknown[] = [];
 * const proxy = await EgressProxy.start({ onDecision: (d) => decisions.push(d) });
 * try {
 *   const conn = await Deno.connect({ transport: "unix", path: proxy.socketPath });
 *   await conn.write(new TextEncoder().encode("CONNECT 127.0.0.1:9:x HTTP/1.1\r\n\r\n"));
 *   const reply = new TextDecoder().decode(await new Response(conn.readable).arrayBuffer());
 *   if (!reply.startsWith("HTTP/1.1 400")) throw new Error(reply);
 * } finally {
 *   await proxy.close();
 * }
 * ```
 */
export class EgressProxy implements AsyncDisposable {
  /** The Unix socket clients connect to (inside a private 0700 directory). */
  readonly socketPath: string;
  /** A second socket that needs no credential: for odek's own web tool children only. */
  readonly trustedSocketPath: string;
  #listener: Deno.Listener;
  #trusted: Deno.Listener;
  /** Live tokens, each with the connections opened with it. */
  #tokens = new Map<string, Set<Deno.Conn>>();
  #dir: string;
  #options: EgressProxyOptions;
  #open = new Set<Deno.Conn>();
  #listeners = new Set<(decision: EgressDecision) => void>();
  #log: Promise<void> = Promise.resolve();
  #serving: Promise<void>;

  private constructor(
    listener: Deno.Listener,
    trusted: Deno.Listener,
    dir: string,
    options: EgressProxyOptions,
  ) {
    this.#listener = listener;
    this.#trusted = trusted;
    this.#dir = dir;
    this.#options = options;
    this.socketPath = (listener.addr as Deno.UnixAddr).path;
    this.trustedSocketPath = (trusted.addr as Deno.UnixAddr).path;
    this.#serving = Promise.all([this.#serve(listener, false), this.#serve(trusted, true)])
      .then(() => {});
  }

  /**
   * A credential for one call (or background job) granted network: the proxy accepts requests
   * carrying it until it is revoked.
   *
   * @returns the token and its revocation
   */
  issue(): EgressCredential {
    const token = crypto.randomUUID().replaceAll("-", "");
    this.#tokens.set(token, new Set());
    return {
      token,
      revoke: () => {
        const conns = this.#tokens.get(token);
        this.#tokens.delete(token);
        for (const conn of conns ?? []) closeQuietly(conn);
      },
    };
  }

  /**
   * Create the socket's private directory and start listening. Directories that killed proxies
   * left in the same place are removed (see `_sweep_stale_egress.ts`).
   *
   * @param options allow-list, decision callback, log file, resolver, timeouts
   * @returns the running proxy
   * @throws what `Deno.makeTempDir` and `Deno.listen` throw (e.g. `PermissionDenied`)
   */
  static async start(options: EgressProxyOptions = {}): Promise<EgressProxy> {
    const dir = await Deno.makeTempDir({ prefix: "odek-egress-", dir: options.dir });
    await Deno.chmod(dir, 0o700);
    const listener = Deno.listen({ transport: "unix", path: join(dir, "proxy.sock") });
    const trusted = Deno.listen({ transport: "unix", path: join(dir, "trusted.sock") });
    await sweepStaleEgress(dirname(dir), dir);
    return new EgressProxy(listener, trusted, dir, options);
  }

  /**
   * Also report every later decision to `listener` (besides `onDecision`).
   *
   * @param listener called once per destination; must not throw
   * @returns a function that stops the reports
   */
  subscribe(listener: (decision: EgressDecision) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Stop listening, cut every open connection, remove the socket directory. Idempotent. */
  async close(): Promise<void> {
    for (const listener of [this.#listener, this.#trusted]) {
      try {
        listener.close();
      } catch {
        // Already closed.
      }
    }
    for (const conn of this.#open) closeQuietly(conn);
    await this.#serving;
    await this.#log;
    await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
  }

  /** {@linkcode EgressProxy.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #serve(listener: Deno.Listener, trusted: boolean): Promise<void> {
    try {
      for await (const conn of listener) {
        if (this.#open.size >= MAX_CONNECTIONS * 2) { // each tunnel holds two connections
          void refuseBusy(conn);
          continue;
        }
        this.#open.add(conn);
        void this.#handle(conn, trusted).finally(() => {
          this.#open.delete(conn);
          closeQuietly(conn);
        });
      }
    } catch {
      // The listener was closed.
    }
  }

  async #handle(client: Deno.Conn, trusted: boolean): Promise<void> {
    const head = await readHead(client);
    if (head === null) return reply(client, 400, "the request head is missing or too large");
    const request = parseProxyRequest(head.text);
    if (request.type === "bad") return reply(client, request.status, request.message);
    const { host, port } = request;
    let owned: Set<Deno.Conn> | undefined;
    if (this.#options.credentials && !trusted) {
      owned = request.credential === undefined ? undefined : this.#tokens.get(request.credential);
      if (owned === undefined) {
        const reason = "no live egress credential: the network of this call was not approved";
        this.#report({ host, port, allowed: false, reason });
        return reply(client, 407, `odek egress refused ${hostPort(host, port)}: ${reason}`);
      }
      owned.add(client);
    }
    const decided = await this.#decide(host, port);
    if (!decided.allowed) {
      this.#report(decided);
      return reply(client, 403, `odek egress refused ${hostPort(host, port)}: ${decided.reason}`);
    }
    let upstream: Deno.Conn | null = null;
    const connect = this.#options.connect ?? ((hostname, port) => Deno.connect({ hostname, port }));
    const failures: string[] = [];
    for (const address of decided.addresses) {
      try {
        upstream = await within(
          connect(address, port),
          this.#options.connectTimeoutMs ?? 15_000,
        );
        this.#report({ host, port, address, allowed: true });
        break;
      } catch (error) {
        failures.push(`${address}: ${(error as Error).message}`);
      }
    }
    if (upstream === null) {
      const reason = `cannot connect (${failures.join("; ")})`;
      this.#report({ host, port, address: decided.addresses[0], allowed: true, reason });
      return reply(client, 502, `odek egress could not reach ${hostPort(host, port)}: ${reason}`);
    }
    this.#open.add(upstream);
    owned?.add(upstream);
    try {
      const first = request.type === "connect"
        ? (await writeAll(client, "HTTP/1.1 200 Connection established\r\n\r\n"), head.rest)
        : concat(new TextEncoder().encode(request.head), head.rest);
      if (first.length > 0) await writeAll(upstream, first);
      await Promise.all([pump(client, upstream), pump(upstream, client)]);
    } catch {
      // Either side went away.
    } finally {
      this.#open.delete(upstream);
      owned?.delete(upstream);
      owned?.delete(client);
      closeQuietly(upstream);
    }
  }

  async #decide(
    host: string,
    port: number,
  ): Promise<{ allowed: true; addresses: string[] } | EgressDecision & { allowed: false }> {
    const denied = matchDenyDomain(host, this.#options.denyDomains ?? []);
    if (denied !== undefined) {
      return {
        host,
        port,
        allowed: false,
        reason: `the host is denied by the deny rule "${denied}"`,
      };
    }
    if (!matchAllowDomains(host, this.#options.allowDomains ?? [])) {
      return { host, port, allowed: false, reason: "the host is not in network.allowDomains" };
    }
    if (/(^|\.)invalid\.?$/i.test(host)) {
      // RFC 6761 §6.4: never resolves; refusing here also keeps the lookup off the network.
      return { host, port, allowed: false, reason: "a reserved .invalid name never resolves" };
    }
    let addresses: string[];
    try {
      addresses = await (this.#options.resolve ?? systemResolve)(host);
    } catch (error) {
      const reason = `cannot resolve the host (${(error as Error).message})`;
      return { host, port, allowed: false, reason };
    }
    if (addresses.length === 0) {
      return { host, port, allowed: false, reason: "the host resolves to no address" };
    }
    let hostAddresses: readonly string[];
    try {
      hostAddresses = (this.#options.hostAddresses ?? interfaceAddresses)();
    } catch (error) {
      const reason = `cannot list this machine's own addresses to refuse them (${
        (error as Error).message
      }): run odek with --allow-sys=networkInterfaces`;
      return { host, port, allowed: false, reason };
    }
    for (const address of addresses) {
      const check = checkAddress(address, { hostAddresses });
      if (!check.allowed) {
        const reason = addresses.length > 1
          ? `${check.reason}, one of its ${addresses.length} addresses`
          : check.reason;
        return { host, port, address, allowed: false, reason };
      }
    }
    return { allowed: true, addresses };
  }

  #report(decision: EgressDecision): void {
    for (const listener of [this.#options.onDecision, ...this.#listeners]) {
      try {
        listener?.(decision);
      } catch {
        // A faulty listener must not break the proxy.
      }
    }
    const file = this.#options.logFile;
    if (file === undefined) return;
    const { host, port, address, allowed, reason } = decision;
    const line = `${new Date().toISOString()} ${allowed ? "allowed" : "refused"} ${
      JSON.stringify(hostPort(host, port))
    } ${address ?? "-"}${reason ? ` ${JSON.stringify(reason)}` : ""}\n`;
    this.#log = this.#log.then(() =>
      Deno.writeTextFile(file, line, { append: true, mode: 0o600 }).catch(() => {})
    );
  }
}

function hostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}

function interfaceAddresses(): string[] {
  return Deno.networkInterfaces().map((entry) => entry.address);
}

async function systemResolve(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}
