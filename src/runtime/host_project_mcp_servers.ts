/**
 * A session host's project MCP servers (`odek.jsonc` `mcpServers`): put to the operator when the
 * host opens (`approveProjectMcpServers`, approvals stored under ODEK_HOME), and only the
 * approved ones handed on to the tool providers.
 *
 * @module
 */
import {
  type ApprovedProjectMcpServer,
  approveProjectMcpServers,
  type AskProjectMcpServer,
} from "../config/approve_project_mcp_servers.ts";
import { McpApprovalStore } from "../config/mcp_approval_store.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { Settings } from "./compose.ts";
import type { HostConfig } from "./host_config.ts";

/**
 * The project's MCP servers the operator approves (or approved before, for this content): the
 * decision's warnings go to the host's. None in an untrusted host (no server starts there).
 *
 * @returns the approved servers, for `ToolProviderHost.projectMcpServers`
 * @throws {OdekError} `CONFIG_INVALID` for an invalid approvals file; what `ask` throws
 */
export async function projectServers(
  settings: Settings,
  hostConfig: HostConfig,
  workspace: string,
  trust: TrustLevel,
  options: {
    ask: AskProjectMcpServer | undefined;
    signal: AbortSignal;
    /** Receives the warnings. */
    warnings: string[];
  },
): Promise<ApprovedProjectMcpServer[]> {
  const { file, mcpServers } = hostConfig.project;
  const names = Object.keys(mcpServers);
  if (names.length === 0) return [];
  if (trust === "untrusted") {
    options.warnings.push(
      `${file}: MCP servers ${
        names.map((n) => JSON.stringify(n)).join(", ")
      } not started: an untrusted run starts no MCP server`,
    );
    return [];
  }
  const decision = await approveProjectMcpServers({
    project: workspace,
    file,
    servers: mcpServers,
    store: McpApprovalStore.inHome(settings.paths.odekHome),
    ...(options.ask ? { ask: options.ask } : {}),
    reserved: Object.keys(hostConfig.config.mcpServers),
    signal: options.signal,
  });
  options.warnings.push(...decision.warnings);
  return decision.approved;
}
