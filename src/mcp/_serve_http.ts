/**
 * `odek mcp serve --http` (private to `mcp/`, loads the SDK): Streamable HTTP on one loopback
 * port, behind {@linkcode gateRequest}. 2025-era requests are served statefully (an
 * `Mcp-Session-Id` session per `initialize`, so elicitation can ask mid-call); 2026-07-28
 * requests statelessly by the SDK's `createMcpHandler` (one instance per request).
 *
 * @module
 */
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { odekMcpServer } from "./_serve_server.ts";
import type { McpService } from "./_serve_service.ts";
import { gateRequest } from "./_serve_http_gate.ts";
import { BoundedEventStore } from "./_serve_event_store.ts";
import { ModernApprovals } from "./_serve_input_required.ts";

/** Options of {@linkcode serveHttp}. */
export interface ServeHttpOptions {
  service: McpService;
  version: string;
  hostname: string;
  port: number;
  token: string;
  /** Host names the `Host` and `Origin` headers may name. */
  hosts: readonly string[];
  maxBodyBytes: number;
  /** Most 2025-era sessions at once; the oldest is closed beyond it. */
  maxSessions: number;
  onError: (error: Error) => void;
}

/** A running HTTP server. */
export interface HttpServing {
  /** The port it listens on. */
  port: number;
  /** Resolves when it stopped. */
  finished: Promise<void>;
  close(): Promise<void>;
}

/** Start listening. */
export async function serveHttp(options: ServeHttpOptions): Promise<HttpServing> {
  const { service, version } = options;
  const modernApprovals = new ModernApprovals();
  const modern = createMcpHandler(
    (ctx) => odekMcpServer(service, version, ctx.era, false, modernApprovals),
    { legacy: "reject", maxRequestBodySize: options.maxBodyBytes, onerror: options.onError },
  );
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const legacy = async (request: Request, body: unknown): Promise<Response> => {
    const id = request.headers.get("mcp-session-id");
    const existing = id ? sessions.get(id) : undefined;
    if (existing) return await existing.handleRequest(request, { parsedBody: body });
    if (id || request.method !== "POST" || !isInitializeRequest(body)) {
      return json(id ? 404 : 400, id ? "Session not found" : "Bad Request: no valid session ID");
    }
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport(
        {
          sessionIdGenerator: () => crypto.randomUUID(),
          eventStore: new BoundedEventStore(),
          retryInterval: 1000,
          maxRequestBodySize: options.maxBodyBytes,
          onsessioninitialized: (sid) => {
            sessions.set(sid, transport);
            while (sessions.size > options.maxSessions) {
              const [oldest, t] = sessions.entries().next().value!;
              sessions.delete(oldest);
              void t.close().catch(() => {});
            }
          },
          onsessionclosed: (sid) => void sessions.delete(sid),
        } as ConstructorParameters<typeof WebStandardStreamableHTTPServerTransport>[0],
      );
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = odekMcpServer(service, version, "legacy", true, modernApprovals);
    await server.connect(transport);
    return await transport.handleRequest(request, { parsedBody: body });
  };
  const handler = async (raw: Request): Promise<Response> => {
    const gated = await gateRequest(raw, {
      token: options.token,
      hosts: options.hosts,
      maxBodyBytes: options.maxBodyBytes,
    });
    if ("refuse" in gated) return gated.refuse;
    const request = gated.request;
    let body: unknown;
    if (request.method === "POST") {
      try {
        body = await request.clone().json();
      } catch {
        body = undefined;
      }
    }
    const isLegacy = request.method === "POST"
      ? body !== undefined && await isLegacyRequest(request.clone(), body, {
        maxRequestBodySize: options.maxBodyBytes,
      })
      : request.headers.has("mcp-session-id");
    if (isLegacy) return await legacy(request, body);
    return await modern.fetch(request, body !== undefined ? { parsedBody: body } : {});
  };
  const abort = new AbortController();
  let port = options.port;
  const listening = Promise.withResolvers<void>();
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: abort.signal,
    onListen: (address) => {
      port = address.port;
      listening.resolve();
    },
    onError: (error) => {
      options.onError(error as Error);
      return json(500, "Internal server error");
    },
  }, handler);
  await listening.promise;
  return {
    port,
    finished: server.finished,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => {})));
      sessions.clear();
      await modern.close().catch(() => {});
      abort.abort();
      await server.finished;
    },
  };
}

function json(status: number, message: string): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }),
    { status, headers: { "content-type": "application/json" } },
  );
}
