/**
 * A workspace's approved project MCP servers as server configurations (private to `mcp/`): only
 * `ApprovedProjectMcpServer` instances are accepted (anything else is a bug upstream, refused with
 * a warning), each entry is validated with the user config's schema, and trust stays the
 * user's: a project entry's `trusted` / `trustedTools` are dropped with a warning.
 *
 * @module
 */
import { ApprovedProjectMcpServer } from "../config/approve_project_mcp_servers.ts";
import {
  MCP_SERVER_NAME_PATTERN,
  type McpServerConfig,
  McpServerConfigSchema,
} from "../config/mcp_server_config.ts";

/**
 * The configurations of the approved project servers that may start.
 *
 * @param approved what the host was given (`host.projectMcpServers`)
 * @param user the user's own servers (a project server never replaces one)
 * @param warn receives why a server is left out or changed
 * @returns `[name, config]` pairs
 */
export function projectServerConfigs(
  approved: readonly unknown[],
  user: Readonly<Record<string, McpServerConfig>>,
  warn: (message: string) => void,
): [string, McpServerConfig][] {
  const out: [string, McpServerConfig][] = [];
  for (const server of approved) {
    if (!(server instanceof ApprovedProjectMcpServer)) {
      warn("a project MCP server that was not approved by approveProjectMcpServers() is ignored");
      continue;
    }
    const { name } = server;
    const what = `project MCP server ${JSON.stringify(name)}`;
    if (Object.hasOwn(user, name)) {
      warn(`${what} is not started: your own configuration has a server of this name`);
      continue;
    }
    if (!MCP_SERVER_NAME_PATTERN.test(name)) {
      warn(
        `${what} is not started: a server name is 1-30 letters, digits, - and single _ (it prefixes its tools)`,
      );
      continue;
    }
    const { trusted, trustedTools, ...entry } = structuredClone(server.entry) as Record<
      string,
      unknown
    >;
    if (trusted !== undefined || trustedTools !== undefined) {
      warn(
        `${what}: its "trusted"/"trustedTools" are ignored (only your own configuration trusts a server): its calls ask`,
      );
    }
    const parsed = McpServerConfigSchema.safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      warn(
        `${what} is not started: its entry is not a valid MCP server (${
          issue?.path.join(".") || "entry"
        }: ${issue?.message ?? "invalid"})`,
      );
      continue;
    }
    out.push([name, parsed.data]);
  }
  return out;
}
