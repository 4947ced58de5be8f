/**
 * The MCP client's entry for surfaces: the configured servers as a per-host tool-provider
 * factory for `createRuntime({ tools })` / `openSession(target, { tools })`. This file loads no
 * SDK: the factory imports it when a host opens with at least one enabled server, so
 * `odek --version` and runs without MCP servers never pay for it.
 *
 * @module
 */
import type { Clarifier } from "../approval/clarifier.ts";
import type { McpServerConfig } from "../config/mcp_server_config.ts";
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
}

/**
 * The factory of the configured servers, or `undefined` when none is enabled. Each session host
 * gets its own server processes: the factory starts every enabled server when the host opens
 * (its tools are part of the run's tool list from the first model request), in parallel, and
 * the host stops them (the whole process tree) when it closes.
 *
 * @param options the servers and what they need
 * @returns the factory, or `undefined`
 *
 * @example No servers: nothing to load
 * ```ts
 * import { mcpTools } from "./mcp_tools.ts";
 * import { NoOperatorClarifier } from "../approval/clarifier.ts";
 * const factory = mcpTools({ servers: {}, clarifier: new NoOperatorClarifier("test"), env: {},
 *   odekHome: "/nonexistent", allowDomains: [], version: "0" });
 * if (factory !== undefined) throw new Error("no servers, no factory");
 * ```
 */
export function mcpTools(options: McpToolsOptions): ToolProviderFactory | undefined {
  const enabled = Object.values(options.servers).some((server) => server.enabled !== false);
  if (!enabled) return undefined;
  return async (host) => {
    // Computed: a literal import() would load the MCP SDK with every run, servers or not.
    const { McpToolProvider }: typeof import("./_mcp_provider.ts") = await import(
      new URL("./_mcp_provider.ts", import.meta.url).href
    );
    return await McpToolProvider.start(options, host);
  };
}
