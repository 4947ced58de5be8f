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

/** How the server is reached. */
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

/** Options for {@linkcode serveMcp}. */
export interface McpServeOptions {
  /** The runtime whose session hosts run the calls (its configuration: `mcpServe.workspaces`). */
  runtime: Runtime;
  /** odek's version, in `initialize` / `server/discover`. */
  version: string;
  /** @default stdio (this process's standard input and output) */
  transport?: McpServeTransport;
  /** More tools for every host it opens (and so for `run_task`'s agent). @default none */
  tools?: readonly ToolProviderSource[];
  /** Receives out-of-band errors (never written to stdout). @default dropped */
  warn?: (message: string) => void;
}

/** A running server. */
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
 * put to the client through elicitation on a 2025-11-25 connection that supports it (stdio, or
 * an HTTP session), else refused with the reason. HTTP binds loopback only (unless
 * `allowNonLoopback`), checks `Host` and `Origin`, requires the token (bearer header or secret
 * path segment, compared in constant time) and caps request bodies.
 *
 * @param options the runtime and the transport
 * @returns the running server
 * @throws {RangeError} a non-loopback address without `allowNonLoopback`
 * @throws {Deno.errors.AddrInUse} the port is taken
 *
 * @example Serve over HTTP on a free loopback port
 * ```ts ignore
 * import { createRuntime, serveMcp } from "@odek/odek";
 * await using runtime = await createRuntime({ env: Deno.env.toObject() });
 * await using server = await serveMcp({
 *   runtime, version: "0.1.0", transport: { type: "http", hostname: "127.0.0.1", port: 0 },
 * });
 * console.error(`MCP endpoint: ${server.tokenUrl}`);
 * await server.finished;
 * ```
 */
export async function serveMcp(options: McpServeOptions): Promise<McpServeHandle> {
  const { startMcpServe } = await import("./_serve_start.ts");
  return await startMcpServe(options);
}
