/**
 * odek as an MCP server (`odek mcp serve`, docs/mcp.md "odek as an MCP server"): odek's built-in
 * tools and whole agent tasks (`run_task`) for MCP clients, over stdio or Streamable HTTP, on
 * the runtime layer — every call a run on a session host, classified, approved and sandboxed as
 * a model's. This file loads no SDK: `serveMcp` imports it.
 *
 * @module
 */
import type { Runtime } from "../runtime/runtime.ts";
import type { ToolProviderSource } from "../runtime/tool_provider_source.ts";

/**
 * How the server is reached.
 *
 * @example Streamable HTTP on a free loopback port, with a token of your own
 * ```ts
 * import type { McpServeTransport } from "./mcp_serve.ts";
 * const http: McpServeTransport = { type: "http", hostname: "127.0.0.1", port: 0, token: "s3cret-token" };
 * if (http.type !== "http" || http.port !== 0) throw new Error();
 * ```
 */
export type McpServeTransport =
  | { type: "stdio" }
  | {
    type: "http";
    /** The address to bind: loopback unless `allowNonLoopback`. */
    hostname: string;
    /** The port (0: any free one; the handle says which). */
    port: number;
    /** The secret clients must send. @default 32 random bytes, base64url */
    token?: string;
    /** Bind an address that is not loopback. @default false */
    allowNonLoopback?: boolean;
    /** More host names `Host` and `Origin` may name when bound to another address. @default none */
    allowHosts?: readonly string[];
    /** Largest request body, in bytes. @default 4194304 (4 MiB) */
    maxBodyBytes?: number;
  };

/**
 * Options for {@linkcode serveMcp}.
 *
 * @example Over stdio (the default transport)
 * ```ts
 * import type { McpServeOptions } from "./mcp_serve.ts";
 * import type { Runtime } from "../runtime/runtime.ts";
 * const options = (runtime: Runtime): McpServeOptions => ({ runtime, version: "0.1.0" });
 * if (typeof options !== "function") throw new Error();
 * ```
 */
export interface McpServeOptions {
  /** The runtime whose session hosts run the calls (its configuration: `mcpServe.workspaces`). */
  runtime: Runtime;
  /** odek's version, in `initialize` / `server/discover`. */
  version: string;
  /** Where clients reach it. @default stdio (this process's standard input and output) */
  transport?: McpServeTransport;
  /**
   * More tools for every host it opens (and so for `run_task`'s agent); a ready provider's tools,
   * and those of a factory with a `list()` property naming them up front, are offered to clients
   * too, called like the built-ins. @default none
   */
  tools?: readonly ToolProviderSource[];
  /** Receives out-of-band errors (never written to stdout). @default dropped */
  warn?: (message: string) => void;
}

/**
 * A running server.
 *
 * @example Wait for the server to stop, or stop it after a minute
 * ```ts
 * import type { McpServeHandle } from "./mcp_serve.ts";
 * async function serveFor(server: McpServeHandle, ms: number): Promise<void> {
 *   const timer = setTimeout(() => void server.close(), ms);
 *   await server.finished;
 *   clearTimeout(timer);
 * }
 * if (typeof serveFor !== "function") throw new Error();
 * ```
 */
export interface McpServeHandle extends AsyncDisposable {
  /** HTTP: the endpoint for clients that send `Authorization: Bearer <token>`. */
  url?: string;
  /** HTTP: the endpoint with the token as its secret path segment. */
  tokenUrl?: string;
  /** HTTP: the token. */
  token?: string;
  /** HTTP: the port it listens on. */
  port?: number;
  /** Resolves when the server stopped (stdio: the client closed standard input) and its hosts closed. */
  finished: Promise<void>;
  /** Stop: cancel what runs, close every host, stop listening. */
  close(): Promise<void>;
}

/**
 * Serve odek over MCP. Clients see `run_task` and odek's built-in file, compute, program and
 * web tools (not `plan`, `clarify` or `delegate_tasks`). Direct calls run one at a time on one
 * session host in the dedicated workspace (opened on the first call); each `run_task` opens a
 * host of its own (the dedicated workspace, or one of `mcpServe.workspaces`), streams progress
 * notifications, and returns the final answer and the changed files. A call that would ask is
 * put to a client that supports elicitation — `elicitation/create` on 2025-11-25 (stdio, or an
 * HTTP session), an input-required result for a direct call on 2026-07-28 — else refused with
 * the reason. HTTP binds loopback only (unless
 * `allowNonLoopback`), checks `Host` and `Origin`, requires the token (bearer header or secret
 * path segment, compared in constant time) and caps request bodies.
 *
 * @param options the runtime and the transport
 * @returns the running server
 * @throws {RangeError} a non-loopback address without `allowNonLoopback`
 * @throws {Deno.errors.AddrInUse} the port is taken
 *
 * @example Serve over HTTP on a free loopback port; a request without the token is refused
 * ```ts
 * import { createRuntime } from "../runtime/create_runtime.ts";
 * import { serveMcp } from "./mcp_serve.ts";
 * const home = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin", ODEK_API_KEY: "unused" },
 *     config: { sandbox: "none" },
 *   });
 *   await using server = await serveMcp({
 *     runtime, version: "0.1.0", transport: { type: "http", hostname: "127.0.0.1", port: 0 },
 *   });
 *   const response = await fetch(server.url!, { method: "POST", body: "{}" });
 *   await response.body?.cancel();
 *   if (response.status !== 401 || !server.tokenUrl?.endsWith(`/${server.token}/mcp`)) {
 *     throw new Error(`${response.status}`);
 *   }
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 * }
 * ```
 */
export async function serveMcp(options: McpServeOptions): Promise<McpServeHandle> {
  const { startMcpServe } = await import("./_serve_start.ts");
  return await startMcpServe(options);
}
