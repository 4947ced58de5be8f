/**
 * One MCP server of one session host (private to `mcp/`): its SDK client over a broker-started
 * stdio process or Streamable HTTP (with OAuth), its tools, and its calls — each with a deadline
 * (cancelled at the server when it passes), a response-size cap, the server's elicitations sent
 * to the clarifier, and a restart when the server died since the last call.
 *
 * @module
 */
import {
  Client,
  SdkError,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import type { Clarifier } from "../approval/clarifier.ts";
import type { StdioServerProcess } from "../broker/stdio_server.ts";
import type { ToolBroker, ToolResult } from "../broker/tool_broker.ts";
import {
  type HttpMcpServerConfig,
  isHttpServer,
  MCP_SERVER_DEFAULTS,
  type McpServerConfig,
} from "../config/mcp_server_config.ts";
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { redactKnownValues } from "../_util/redact_known_values.ts";
import { CallTimers } from "./_call_timers.ts";
import { connectHttp, MAX_AUTHORIZATIONS } from "./_http_connect.ts";
import { type AuthorizationOpener, McpOAuthProvider } from "./_oauth_provider.ts";
import { resultText, type ToolResultLike } from "./_result_text.ts";
import { serverLogFile, stdioServerSpec } from "./_stdio_spec.ts";
import { BrokerStdioTransport } from "./_stdio_transport.ts";
import { invalidXMcpHeader } from "./_x_mcp_header.ts";
import { askOperator, createServerClient } from "./_server_client.ts";
import { describeFailure } from "./_describe_failure.ts";
import type { OAuthStore } from "./oauth_store.ts";

/** What a connection needs of its host and of odek. */
export interface ServerConnectionOptions {
  name: string;
  config: McpServerConfig;
  /** The host's broker (starts stdio servers). */
  broker: ToolBroker;
  workspace: string;
  clarifier: Clarifier;
  /** odek's environment (for `envNames` and the allow-list). */
  env: Readonly<Record<string, string>>;
  /** `ODEK_HOME/logs/mcp`. */
  logDir: string;
  store: OAuthStore;
  opener?: AuthorizationOpener;
  fetch?: typeof fetch;
  allowDomains: readonly string[];
  /** odek's version (the client info). */
  version: string;
}

/** Pages of `tools/list` read at most. */
const MAX_PAGES = 64;

/** `tools/list` as odek reads it: each tool's fields are checked one by one later. */
const ListedToolsSchema = z.object({
  tools: z.array(
    z.looseObject({
      name: z.string().min(1).max(512),
      description: z.string().optional().catch(undefined),
      inputSchema: z.unknown(),
    }),
  ).max(10_000),
  nextCursor: z.string().optional(),
});

/** Restarts of a server that died, per host. */
const MAX_RESTARTS = 3;
/** Longest wait for the version probe of a stdio server that stays silent. */
const PROBE_MS = 5_000;
/** SDK timeouts are disabled: odek's own deadlines (which pause for the operator) apply. */
const NO_SDK_TIMEOUT = 2_147_483_647;

/** One server's client, tools and calls. */
export class ServerConnection {
  readonly name: string;
  readonly #o: ServerConnectionOptions;
  readonly #timers = new CallTimers();
  readonly #timeoutMs: number;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #process: StdioServerProcess | undefined;
  #oauth: McpOAuthProvider | undefined;
  #alive = false;
  #starts = 0;
  #tools: Tool[] = [];
  #notes: string[] = [];
  /** The newest failure, for `odek mcp list`. */
  lastError: string | undefined;
  /** Why tools of the last listing were left out (SEP-2243 header declarations). */
  dropped: string[] = [];

  /** @param options the server and what it needs */
  constructor(options: ServerConnectionOptions) {
    this.#o = options;
    this.name = options.name;
    this.#timeoutMs = (options.config.timeoutSeconds ?? MCP_SERVER_DEFAULTS.timeoutSeconds) * 1000;
  }

  /** The tools the server listed at the last connect. */
  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Whether a client is connected. */
  get connected(): boolean {
    return this.#alive;
  }

  /** The negotiated protocol revision. */
  get protocolVersion(): string | undefined {
    return this.#client?.getNegotiatedProtocolVersion();
  }

  /** Where the server's stderr (and stdout noise) goes. */
  get logFile(): string {
    return serverLogFile(this.#o.logDir, this.name);
  }

  /** A line of what the sandbox is: shown in approval prompts. */
  get scope(): string {
    const c = this.#o.config;
    if (isHttpServer(c)) return `HTTP ${new URL(c.url).origin}`;
    const writes = c.writablePaths?.length ? `writes ${c.writablePaths.join(", ")}` : "read-only";
    return `stdio ${c.command} in a sandbox: workspace ${
      c.writablePaths?.includes(".") ? "writable" : "read-only"
    }, ${writes}, ${c.network ? "network through the egress proxy" : "no network"}`;
  }

  /**
   * Start (or reach) the server, connect and list its tools.
   *
   * @throws {OdekError} `MCP_SERVER_FAILED` saying what failed (with the log's tail for a stdio
   *   server that exited), and the broker's errors
   */
  async connect(): Promise<void> {
    this.#starts += 1;
    try {
      if (isHttpServer(this.#o.config)) await this.#connectHttp(this.#o.config);
      else await this.#connectStdio();
      this.#tools = await this.#listTools();
      this.lastError = undefined;
    } catch (error) {
      await this.close();
      const failure = await this.#describe(error, "starting");
      this.lastError = failure;
      throw new OdekError("MCP_SERVER_FAILED", failure, { cause: error });
    }
  }

  /**
   * Call `tool` with `args`. Failures are results: `timeout` (the request was cancelled at the
   * server), `interrupted`, `failed` (the server's error, a crash, an oversized response).
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    if (!this.#alive) {
      if (this.#starts > MAX_RESTARTS) {
        return failure(
          "failed",
          `MCP server ${this.name} stopped and was restarted ${MAX_RESTARTS} times; it is not started again in this session. ${
            this.lastError ?? ""
          }`.trim(),
        );
      }
      try {
        await this.connect();
      } catch (error) {
        return failure("failed", (error as Error).message);
      }
    }
    this.#notes = [];
    const definition = this.#tools.find((t) => t.name === tool);
    let result: ToolResultLike;
    try {
      result = await this.#request(
        (options) =>
          this.#client!.callTool({ name: tool, arguments: args }, {
            ...options,
            // The definition listed (read leniently, so the SDK's own listing cache is empty).
            ...(definition ? { toolDefinition: definition } : {}),
          }),
        signal,
      ) as ToolResultLike;
    } catch (error) {
      if (signal.aborted) {
        return failure(
          "interrupted",
          `The call of ${tool} on MCP server ${this.name} was interrupted; a cancellation was sent to the server.`,
        );
      }
      if (error instanceof CallTimeout) {
        return failure(
          "timeout",
          `MCP server ${this.name} did not answer ${tool} within ${
            this.#timeoutMs / 1000
          } s; the call was cancelled at the server.`,
        );
      }
      return failure("failed", await this.#describe(error, `calling ${tool}`));
    }
    const max = this.#o.config.maxResultChars ?? MCP_SERVER_DEFAULTS.maxResultChars;
    // A server echoing its own OAuth token never shows it (the run's redactor does not know it).
    const hide = redactKnownValues(this.#oauth?.secrets() ?? []);
    const text = hide(
      [resultText(result, { server: this.name, tool }, max), ...this.#notes]
        .filter((t) => t !== "").join("\n"),
    );
    return result.isError
      ? failure("failed", text || `${tool} failed`)
      : { ok: true, output: text };
  }

  /** Close the client and stop the server (its whole process tree). Idempotent. */
  async close(): Promise<void> {
    this.#alive = false;
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    await client?.close().catch(() => {});
    await this.#process?.stop(1000);
    this.#process = undefined;
    await this.#oauth?.close();
  }

  /**
   * Every page of `tools/list`, read with a lenient schema: one tool with a broken schema must not
   * lose the others (each tool's schema is checked on its own later).
   */
  async #listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const listed = await this.#request((options) =>
        this.#client!.request({ method: "tools/list", params }, ListedToolsSchema, options)
      );
      for (const tool of listed.tools) tools.push(tool as unknown as Tool);
      cursor = listed.nextCursor;
      if (cursor === undefined) return this.#headerChecked(tools);
    }
    throw new Error(`tools/list had more than ${MAX_PAGES} pages`);
  }

  /** On a 2026 HTTP connection, tools with invalid `x-mcp-header` declarations are left out. */
  #headerChecked(tools: Tool[]): Tool[] {
    this.dropped = [];
    if (this.#client?.getProtocolEra() !== "modern" || !isHttpServer(this.#o.config)) return tools;
    return tools.filter((tool) => {
      const fault = invalidXMcpHeader(tool.inputSchema);
      if (fault) {
        this.dropped.push(`MCP server ${this.name}'s tool "${tool.name}" is left out: ${fault}`);
      }
      return fault === undefined;
    });
  }

  async #connectStdio(): Promise<void> {
    const config = this.#o.config as Exclude<McpServerConfig, HttpMcpServerConfig>;
    if (!this.#o.broker.startServer) {
      throw new OdekError(
        "MCP_SERVER_FAILED",
        `This session's broker cannot start programs, so MCP server ${this.name} cannot run`,
      );
    }
    const spec = stdioServerSpec(this.name, config, { ...this.#o, logDir: this.#o.logDir });
    const maxLineBytes = config.maxResponseBytes ?? MCP_SERVER_DEFAULTS.maxResponseBytes;
    const start = async () => {
      const process = await this.#o.broker.startServer!(spec);
      this.#process = process;
      return new BrokerStdioTransport(process, {
        maxLineBytes,
        noise: (line) => this.#log(line),
      });
    };
    const client = this.#newClient();
    try {
      await client.connect(await start(), { timeout: this.#timeoutMs });
    } catch (error) {
      // A 2025 server that exits on the version probe: start it again and skip the probe.
      if (
        !(error instanceof SdkError) ||
        !/closed during the server\/discover probe/.test(error.message)
      ) throw error;
      await this.#process?.stop(500);
      const legacy = this.#newClient();
      await legacy.connect(await start(), { timeout: this.#timeoutMs, prior: { kind: "legacy" } });
      return this.#adopt(legacy);
    }
    this.#adopt(client);
  }

  async #connectHttp(config: HttpMcpServerConfig): Promise<void> {
    if (config.oauth !== false) {
      this.#oauth ??= await McpOAuthProvider.open({
        server: this.name,
        config,
        store: this.#o.store,
        ...(this.#o.opener ? { opener: this.#o.opener } : {}),
      });
    }
    const { client, transport } = await connectHttp(config, {
      fetch: this.#o.fetch ?? fetch,
      oauth: this.#oauth,
      newClient: () => this.#newClient(),
      timeoutMs: this.#timeoutMs,
    });
    this.#transport = transport;
    this.#adopt(client);
  }

  #adopt(client: Client): void {
    this.#client = client;
    this.#alive = true;
    client.onclose = () => {
      if (this.#client === client) this.#alive = false;
    };
  }

  #newClient(): Client {
    return createServerClient({
      version: this.#o.version,
      probeMs: Math.min(PROBE_MS, this.#timeoutMs),
      elicit: async (params) => {
        this.#timers.pause();
        try {
          const { answer, note } = await askOperator(params, this.name, this.#o.clarifier);
          this.#notes.push(note);
          return answer;
        } finally {
          this.#timers.resume();
        }
      },
    });
  }

  /**
   * One request with odek's deadline (paused during elicitations) and the caller's signal; an
   * authorization the server asks for mid-session (a scope step-up) is run and the request tried
   * again.
   */
  async #request<T>(
    send: (options: { signal: AbortSignal; timeout: number }) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    for (let attempt = 0;; attempt++) {
      const timer = this.#timers.start(this.#timeoutMs);
      const both = signal ? AbortSignal.any([signal, timer.signal]) : timer.signal;
      try {
        return await send({ signal: both, timeout: NO_SDK_TIMEOUT });
      } catch (error) {
        if (timer.expired) throw new CallTimeout();
        if (!this.#oauth?.pending || attempt >= MAX_AUTHORIZATIONS || !this.#transport) throw error;
        const transport = this.#transport as StreamableHTTPClientTransport;
        await transport.finishAuth(await this.#oauth.waitForCallback(signal));
      } finally {
        timer.clear();
      }
    }
  }

  /** What failed, for the model and the operator (the stdio log's tail when it exited). */
  #describe(error: unknown, doing: string): Promise<string> {
    return describeFailure(error, {
      server: this.name,
      doing,
      config: this.#o.config,
      ...(this.#process ? { process: this.#process } : {}),
    });
  }

  #log(line: string): void {
    Deno.writeTextFile(this.logFile, `${line}\n`, { append: true, mode: 0o600 }).catch(() => {});
  }
}

/** Marks a request odek's deadline ended. */
class CallTimeout extends Error {}

function failure(kind: "failed" | "timeout" | "interrupted", message: string): ToolResult {
  return { ok: false, error: { kind, message } };
}
