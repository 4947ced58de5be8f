/**
 * `odek mcp list|login|logout`: the configured MCP servers as the last session saw them, and
 * the OAuth login of HTTP servers; `odek mcp serve` (and bare `odek mcp`) is odek as a server
 * (`mcp_serve_command.ts`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import { isHttpServer, type McpServerConfig } from "../config/mcp_server_config.ts";
import { McpStatusFile } from "../mcp/mcp_status.ts";
import { OAuthStore } from "../mcp/oauth_store.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalOpener } from "./terminal_opener.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { terminalSafeJson } from "./terminal_safe_json.ts";
import { ODEK_VERSION } from "./version.ts";

/**
 * Run `odek mcp` with its arguments.
 *
 * @returns the exit code
 * @throws {OdekError} `USAGE` for a bad action or an unknown server; `MCP_SERVER_FAILED` when a
 *   login fails
 */
export async function mcpCommand(args: string[], io: CliIO): Promise<number> {
  // `odek mcp` alone, and `odek mcp serve …`: odek as an MCP server.
  if (args.length === 0 || args[0] === "serve" || args[0].startsWith("--http")) {
    const { mcpServeCommand } = await import("./mcp_serve_command.ts");
    return await mcpServeCommand(args[0] === "serve" ? args.slice(1) : args, io);
  }
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { help: { type: "boolean", short: "h" }, json: { type: "boolean" } },
      allowPositionals: true,
    });
  } catch (error) {
    throw flagError(error, "mcp");
  }
  const [action, name, ...rest] = parsed.positionals;
  if (parsed.values.help || action === undefined) {
    io.stdout.write(`${HELP_TEXT.mcp}\n`);
    return parsed.values.help ? EXIT.ok : EXIT.usage;
  }
  if (rest.length > 0) {
    throw new OdekError("USAGE", `Unexpected argument "${rest[0]}". Run "odek mcp --help".`);
  }
  await using runtime = await cliRuntime(io);
  const servers = runtime.config.mcpServers;
  const odekHome = runtime.paths.odekHome;
  const server = (): [string, McpServerConfig] => {
    if (!name) {
      throw new OdekError("USAGE", `odek mcp ${action} needs a server name: see odek mcp list.`);
    }
    const config = servers[name];
    if (!config) {
      const known = Object.keys(servers).join(", ") || "none";
      throw new OdekError(
        "USAGE",
        `There is no MCP server "${name}" in mcpServers (servers: ${known}).`,
      );
    }
    return [name, config];
  };
  switch (action) {
    case "list":
      return await list(io, servers, odekHome, parsed.values.json === true);
    case "login": {
      const [n, config] = server();
      const { loginMcpServer } = await import("../mcp/mcp_login.ts");
      const tools = await loginMcpServer(n, config, {
        odekHome,
        opener: terminalOpener(io),
        version: ODEK_VERSION,
      });
      io.stdout.write(
        `Logged in to MCP server ${terminalSafe(n, true)}: it offers ${tools} tools.\n`,
      );
      return EXIT.ok;
    }
    case "logout": {
      const [n, config] = server();
      const { logoutMcpServer } = await import("../mcp/mcp_login.ts");
      const had = await logoutMcpServer(n, config, odekHome);
      io.stdout.write(
        had
          ? `Logged out of MCP server ${
            terminalSafe(n, true)
          }: its tokens and registration are deleted.\n`
          : `MCP server ${terminalSafe(n, true)} had no stored login.\n`,
      );
      return EXIT.ok;
    }
    default:
      throw new OdekError("USAGE", `Unknown action "${action}". Run "odek mcp --help".`);
  }
}

async function list(
  io: CliIO,
  servers: Record<string, McpServerConfig>,
  odekHome: string,
  json: boolean,
): Promise<number> {
  const status = await new McpStatusFile(odekHome).read();
  const store = new OAuthStore(odekHome);
  const rows = [];
  for (const [name, config] of Object.entries(servers)) {
    const seen = status[name];
    const login = isHttpServer(config) && config.oauth !== false
      ? (Object.keys((await store.load(name, config.url))?.tokens ?? {}).length > 0
        ? "logged in"
        : "not logged in")
      : undefined;
    rows.push({
      name,
      type: isHttpServer(config) ? "http" : "stdio",
      target: isHttpServer(config)
        ? config.url
        : [config.command, ...(config.args ?? [])].join(" "),
      enabled: config.enabled !== false,
      trusted: config.trusted === true,
      state: config.enabled === false ? "disabled" : seen?.state ?? "not started yet",
      tools: seen?.tools ?? [],
      ...(seen?.lastError ? { lastError: seen.lastError } : {}),
      ...(seen?.at ? { at: seen.at } : {}),
      ...(seen?.protocolVersion ? { protocolVersion: seen.protocolVersion } : {}),
      ...(login ? { login } : {}),
    });
  }
  if (json) {
    io.stdout.write(`${terminalSafeJson(rows)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write(
      'No MCP servers configured. Add one under "mcpServers" in ODEK_HOME/config.jsonc (see docs/mcp.md).\n',
    );
    return EXIT.ok;
  }
  for (const row of rows) {
    const facts = [
      row.type,
      row.state,
      `${row.tools.length} tools`,
      ...(row.login ? [row.login] : []),
      ...(row.trusted ? ["trusted"] : []),
      ...(row.protocolVersion ? [`protocol ${row.protocolVersion}`] : []),
      ...(row.at ? [`as of ${row.at}`] : []),
    ];
    io.stdout.write(`${terminalSafe(row.name, true)} (${facts.join(", ")})\n`);
    io.stdout.write(`  ${terminalSafe(row.target, true)}\n`);
    if (row.tools.length > 0) {
      io.stdout.write(`  tools: ${terminalSafe(row.tools.join(", "), true)}\n`);
    }
    if (row.lastError) io.stdout.write(`  last error: ${terminalSafe(row.lastError, true)}\n`);
  }
  return EXIT.ok;
}
