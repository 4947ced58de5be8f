/**
 * The MCP client's entry for surfaces: the configured servers as a per-host tool-provider
 * factory for `createRuntime({ tools })` / `openSession(target, { tools })`. This file loads no
 * SDK: the factory imports it when a host opens with at least one enabled server, so
 * `odek --version` and runs without MCP servers never pay for it.
 *
 * @module
 */
import { lazyModule } from "../_util/lazy_module.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import type { McpServerConfig } from "../config/mcp_server_config.ts";
import type { ToolProvider } from "../loop/tool_provider.ts";
import type { ToolProviderFactory } from "../runtime/tool_provider_source.ts";
import type { AuthorizationOpener } from "./_oauth_provider.ts";

export type { AuthorizationOpener };

/** Options for {@linkcode mcpTools}. */
export interface McpToolsOptions {
  /** `mcpServers` of the configuration. */
  servers: Readonly<Record<string, McpServerConfig>>;
  /** Answers the servers' elicitations (the host's clarifier). */
  clarifier: Clarifier;
  /** odek's environment: `envNames` are passed from it. */
  env: Readonly<Record<string, string>>;
  /** `ODEK_HOME`: server logs (`logs/mcp/`), OAuth tokens (`mcp/oauth/`), status. */
  odekHome: string;
  /** The egress allow-list for servers with `network` (config `network.allowDomains`). */
  allowDomains: readonly string[];
  /** odek's version, sent as the client's. */
  version: string;
  /**
   * The browser step of an OAuth login. Without it a server that needs a login fails with
   * `run "odek mcp login <server>"`. @default none
   */
  opener?: AuthorizationOpener;
  /** The `fetch` of HTTP servers (tests). @default the global one */
  fetch?: typeof fetch;
  /** Receives each warning (a server that did not start, a tool left out). @default dropped */
  warn?: (message: string) => void;
  /**
   * Start the project servers the operator approved for each host (`host.projectMcpServers`,
   * accepted only as `ApprovedProjectMcpServer` instances) besides `servers`. @default true
   */
  projectServers?: boolean;
}

/**
 * The factory of the configured servers, or `undefined` when none is enabled and project servers
 * are not wanted (`projectServers: false`). Each session host gets its own server processes: the
 * factory starts every enabled server, and the project servers the operator approved for that
 * host, when the host opens (their tools are part of the run's tool list from the first model
 * request), in parallel, and the host stops them (the whole process tree) when it closes. A host
 * with nothing to start gets an empty provider, without loading the SDK.
 *
 * @param options the servers and what they need
 * @returns the factory, or `undefined`
 *
 * @example No servers: nothing to load
 * ```ts
 * import { mcpTools } from "./mcp_tools.ts";
 * import { NoOperatorClarifier } from "../approval/clarifier.ts";
 * const factory = mcpTools({ servers: {}, clarifier: new NoOperatorClarifier("test"), env: {},
 *   odekHome: "/nonexistent", allowDomains: [], version: "0", projectServers: false });
 * if (factory !== undefined) throw new Error("no servers, no factory");
 * ```
 */
export function mcpTools(options: McpToolsOptions): ToolProviderFactory | undefined {
  const enabled = Object.values(options.servers).some((server) => server.enabled !== false);
  const project = options.projectServers ?? true;
  if (!enabled && !project) return undefined;
  return async (host) => {
    const approved = project ? host.projectMcpServers ?? [] : [];
    if (!enabled && approved.length === 0) return NO_SERVERS;
    // Lazy (src/_util/lazy_module.ts): a literal import() would load the MCP SDK with every run, servers or not.
    const { McpToolProvider }: typeof import("./_mcp_provider.ts") = await lazyModule(
      "mcp/_mcp_provider.ts",
    );
    return await McpToolProvider.start(
      project ? options : { ...options, projectServers: false },
      host,
    );
  };
}

/** A host with no server to start: no tools, and nothing loaded. */
const NO_SERVERS: ToolProvider = {
  name: "MCP servers",
  list: () => [],
  classify: () => ({ kind: "fixed", class: "unknown", detail: "not an MCP tool of this run" }),
  run: (invocation) =>
    Promise.resolve({
      ok: false,
      error: { kind: "unknown_tool", message: `${invocation.name} is not an MCP tool of this run` },
    }),
};
