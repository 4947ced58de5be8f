/**
 * The CLI's MCP servers: `mcpServers` of the configuration as the tool providers of a session
 * host, their warnings printed on stderr.
 *
 * @module
 */
import type { Clarifier } from "../approval/clarifier.ts";
import { type AuthorizationOpener, mcpTools } from "../mcp/mcp_tools.ts";
import type { Runtime } from "../runtime/runtime.ts";
import type { ToolProviderSource } from "../runtime/tool_provider_source.ts";
import type { CliIO } from "./cli_io.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { ODEK_VERSION } from "./version.ts";

/**
 * The tool sources of the configured MCP servers (none when no server is enabled).
 *
 * @param runtime the command's runtime (its configuration and `ODEK_HOME`)
 * @param io where warnings go, and the environment servers may take variables from
 * @param clarifier who answers the servers' elicitations (the host's clarifier)
 * @param options `opener`: the browser step of an OAuth login (without it a server that needs
 *   one fails with `run "odek mcp login <server>"`); `fetch` of HTTP servers (tests)
 * @returns the sources for `openSession(target, { tools })`
 *
 * @example
 * ```ts ignore
 * const operator = await terminalOperator(flags.yes);
 * await runtime.openSession(target, { ...operator, tools: cliMcpTools(runtime, io, operator.clarifier) });
 * ```
 */
export function cliMcpTools(
  runtime: Runtime,
  io: CliIO,
  clarifier: Clarifier,
  options: { opener?: AuthorizationOpener; fetch?: typeof fetch } = {},
): ToolProviderSource[] {
  const factory = mcpTools({
    servers: runtime.config.mcpServers,
    clarifier,
    env: io.env,
    odekHome: runtime.paths.odekHome,
    allowDomains: runtime.config.network.allowDomains,
    version: ODEK_VERSION,
    ...(options.opener ? { opener: options.opener } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    warn: (message) => io.stderr.write(`odek: warning: ${terminalSafe(message)}\n`),
  });
  return factory ? [factory] : [];
}
