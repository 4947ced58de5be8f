/**
 * Starting `odek mcp serve` on its transport (private to `mcp/`, loads the SDK); the public
 * entry is `serveMcp()` in `mcp_serve.ts`.
 *
 * @module
 */
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { serveHttp } from "./_serve_http.ts";
import { newToken } from "./_serve_http_gate.ts";
import { odekMcpServer } from "./_serve_server.ts";
import { McpService } from "./_serve_service.ts";
import { ModernApprovals } from "./_serve_input_required.ts";
import type { McpServeHandle, McpServeOptions } from "./mcp_serve.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Start serving; see `serveMcp`. */
export async function startMcpServe(options: McpServeOptions): Promise<McpServeHandle> {
  const warn = options.warn ?? (() => {});
  const service = new McpService({
    runtime: options.runtime,
    workspaces: options.runtime.config.mcpServe.workspaces,
    ...(options.tools ? { tools: options.tools } : {}),
    warn,
  });
  const transport = options.transport ?? { type: "stdio" };
  if (transport.type === "stdio") {
    const done = Promise.withResolvers<void>();
    const stdio = new StdioServerTransport();
    const close = stdio.close.bind(stdio);
    stdio.close = async () => {
      await close();
      done.resolve();
    };
    const approvals = new ModernApprovals();
    const handle = serveStdio(
      (ctx) => odekMcpServer(service, options.version, ctx.era, true, approvals),
      { transport: stdio, onerror: (error) => warn(`MCP: ${error.message}`) },
    );
    const stop = async () => {
      await handle.close().catch(() => {});
      done.resolve();
      await service[Symbol.asyncDispose]();
    };
    return {
      finished: done.promise.then(() => service[Symbol.asyncDispose]()),
      close: stop,
      [Symbol.asyncDispose]: stop,
    };
  }
  const hostname = transport.hostname;
  if (!LOOPBACK.has(hostname) && transport.allowNonLoopback !== true) {
    throw new RangeError(
      `odek mcp serve --http binds loopback only (127.0.0.1, ::1, localhost), got ${
        JSON.stringify(hostname)
      }: pass --allow-non-loopback to bind another address (anyone who can reach it and has the token can run tools)`,
    );
  }
  const token = transport.token ?? newToken();
  const bracket = hostname.includes(":") ? `[${hostname}]` : hostname;
  const hosts = LOOPBACK.has(hostname)
    ? ["127.0.0.1", "localhost", "[::1]"]
    : [bracket.toLowerCase(), ...(transport.allowHosts ?? [])];
  const http = await serveHttp({
    service,
    version: options.version,
    hostname,
    port: transport.port,
    token,
    hosts,
    maxBodyBytes: transport.maxBodyBytes ?? 4 * 1024 * 1024,
    maxSessions: 64,
    onError: (error) => warn(`MCP HTTP: ${error.message}`),
  });
  const base = `http://${bracket}:${http.port}`;
  const stop = async () => {
    await http.close();
    await service[Symbol.asyncDispose]();
  };
  return {
    url: `${base}/mcp`,
    tokenUrl: `${base}/${token}/mcp`,
    token,
    port: http.port,
    finished: http.finished.then(() => service[Symbol.asyncDispose]()),
    close: stop,
    [Symbol.asyncDispose]: stop,
  };
}
