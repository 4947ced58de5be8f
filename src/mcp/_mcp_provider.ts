/**
 * The tool provider of one session host's MCP servers (private to `mcp/`, loaded only when a
 * server is configured): it starts every enabled server at once when the host opens, offers
 * their tools as `<server>__<tool>`, classifies every call `unknown` (or `code_execution` for a
 * trusted server or tool), runs calls on the server, and stops the servers with the host.
 *
 * @module
 */
import { join } from "node:path";
import { TOOL_CATALOGUE } from "../../tools/_catalogue/mod.ts";
import type { ClassificationRule } from "../../tools/_catalogue/mod.ts";
import { neutralizeText } from "../_util/neutralize_text.ts";
import type { ToolInvocation, ToolResult } from "../broker/tool_broker.ts";
import type { ProvidedCall, ProvidedTool, ToolProvider } from "../loop/tool_provider.ts";
import type { ToolProviderHost } from "../runtime/tool_provider_source.ts";
import { ServerConnection } from "./_server_connection.ts";
import { mcpToolArgs } from "./_tool_args.ts";
import type { McpToolsOptions } from "./mcp_tools.ts";
import { McpStatusFile } from "./mcp_status.ts";
import { normalizeToolSchema } from "./normalize_tool_schema.ts";
import { OAuthStore } from "./oauth_store.ts";
import { assignToolNames } from "./tool_names.ts";
import { projectServerConfigs } from "./_project_servers.ts";
import type { McpServerConfig } from "../config/mcp_server_config.ts";

/** Longest tool description the model is shown, in characters. */
const MAX_DESCRIPTION = 1024;

interface Entry {
  connection: ServerConnection;
  tool: string;
  provided: ProvidedTool;
  trusted: boolean;
}

/** The MCP servers of one host, as one tool provider. */
export class McpToolProvider implements ToolProvider, AsyncDisposable {
  readonly name = "MCP servers";
  readonly #connections: ServerConnection[];
  readonly #entries: Map<string, Entry>;
  readonly #status: McpStatusFile;

  private constructor(
    connections: ServerConnection[],
    entries: Map<string, Entry>,
    status: McpStatusFile,
  ) {
    this.#connections = connections;
    this.#entries = entries;
    this.#status = status;
  }

  /**
   * Start every enabled server for `host` (in parallel) and collect their tools. A server that
   * fails to start, a tool whose schema cannot be used and tools whose names collide are left
   * out with a warning; the host opens anyway. An `untrusted` host starts none.
   */
  static async start(options: McpToolsOptions, host: ToolProviderHost): Promise<McpToolProvider> {
    const warn = options.warn ?? (() => {});
    const status = new McpStatusFile(options.odekHome);
    const servers: Record<string, McpServerConfig> = { ...options.servers };
    if (options.projectServers !== false) {
      for (
        const [name, config] of projectServerConfigs(host.projectMcpServers ?? [], servers, warn)
      ) {
        servers[name] = config;
      }
    }
    const enabled = Object.entries(servers).filter(([, c]) => c.enabled !== false);
    if (host.trust === "untrusted") {
      if (enabled.length > 0) warn("MCP servers are not started in an untrusted run");
      return new McpToolProvider([], new Map(), status);
    }
    const store = new OAuthStore(options.odekHome);
    const logDir = join(options.odekHome, "logs", "mcp");
    const connections = enabled.map(([name, config]) =>
      new ServerConnection({
        name,
        config,
        broker: host.broker,
        workspace: host.workspace,
        clarifier: options.clarifier,
        env: options.env,
        logDir,
        store,
        allowDomains: options.allowDomains,
        version: options.version,
        ...(options.opener ? { opener: options.opener } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      })
    );
    const started = await Promise.all(connections.map(async (connection) => {
      try {
        await connection.connect();
        return true;
      } catch (error) {
        warn((error as Error).message);
        return false;
      }
    }));
    const candidates = [];
    for (const connection of connections.filter((_, i) => started[i])) {
      for (const why of connection.dropped) warn(why);
      const config = servers[connection.name];
      for (const tool of connection.tools) {
        const normal = normalizeToolSchema(tool.inputSchema);
        if ("error" in normal) {
          warn(`MCP server ${connection.name}'s tool "${tool.name}" is left out: ${normal.error}`);
          continue;
        }
        const trusted = config.trusted === true || (config.trustedTools ?? []).includes(tool.name);
        candidates.push({
          server: connection.name,
          tool: tool.name,
          value: { connection, schema: normal.schema, description: tool.description, trusted },
        });
      }
    }
    const { names, refused } = assignToolNames(candidates, TOOL_CATALOGUE.map((t) => t.name));
    for (const why of refused) warn(why);
    const entries = new Map<string, Entry>();
    for (const [name, { server, tool, value }] of names) {
      entries.set(name, {
        connection: value.connection,
        tool,
        trusted: value.trusted,
        provided: {
          name,
          description: describe(server, value.description),
          args: mcpToolArgs(value.schema),
        },
      });
    }
    const provider = new McpToolProvider(connections, entries, status);
    await provider.#record();
    return provider;
  }

  list(): readonly ProvidedTool[] {
    return [...this.#entries.values()].map((e) => e.provided);
  }

  /**
   * `unknown` (asks at `standard`; `--yes` never approves it), or `code_execution` for a trusted
   * server or tool. The detail names the server and its sandbox, shown in the approval prompt:
   * the sandbox was fixed when the server started, so no verdict can narrow one call.
   */
  classify(call: ProvidedCall): ClassificationRule {
    const entry = this.#entries.get(call.name);
    if (!entry) return { kind: "fixed", class: "unknown", detail: "not an MCP tool of this run" };
    const { connection, tool } = entry;
    return {
      kind: "fixed",
      class: entry.trusted ? "code_execution" : "unknown",
      detail: `MCP server ${connection.name} tool "${tool}"${
        entry.trusted ? " (trusted in the config)" : ""
      }; the server's scope: ${connection.scope}`,
    };
  }

  async run(invocation: ToolInvocation, signal: AbortSignal): Promise<ToolResult> {
    const entry = this.#entries.get(invocation.name);
    if (!entry) {
      return {
        ok: false,
        error: {
          kind: "unknown_tool",
          message: `${invocation.name} is not an MCP tool of this run`,
        },
      };
    }
    const result = await entry.connection.call(entry.tool, invocation.args, signal);
    if (!result.ok) await this.#record();
    return result;
  }

  /** Stop every server (each whole process tree) and record their state. */
  async [Symbol.asyncDispose](): Promise<void> {
    await Promise.all(this.#connections.map((c) => c.close()));
    await this.#record().catch(() => {});
  }

  async #record(): Promise<void> {
    await this.#status.update(this.#connections.map((c) => ({
      name: c.name,
      state: c.connected ? "connected" : c.lastError ? "failed" : "stopped",
      tools: [...this.#entries].filter(([, e]) => e.connection === c).map(([name]) => name),
      ...(c.lastError ? { lastError: c.lastError } : {}),
      ...(c.protocolVersion ? { protocolVersion: c.protocolVersion } : {}),
    }))).catch(() => {});
  }
}

function describe(server: string, description: string | undefined): string {
  const text = neutralizeText(description ?? "").text.trim();
  const capped = text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1)}…` : text;
  return `(MCP server "${server}") ${capped}`.trim();
}
