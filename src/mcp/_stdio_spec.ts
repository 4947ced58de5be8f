/**
 * A stdio server's configuration turned into what the broker starts (private to `mcp/`): its
 * argv, its environment (an allow-list, then the names the operator passes through, then the
 * values the operator set), and its scope (paths relative to the workspace resolved).
 *
 * @module
 */
import { isAbsolute, join, resolve } from "node:path";
import { isSecretName } from "../_util/is_secret_name.ts";
import type { StdioServerSpec } from "../broker/stdio_server.ts";
import type { StdioMcpServerConfig } from "../config/mcp_server_config.ts";

/** Variables a server gets from odek's environment without being named (odek-go §5.6). */
const ALLOWED = /^(TZ|TERM|LC_[A-Z]+|LANGUAGE|USER|LOGNAME)$/;

/** Launchers that fetch packages at start (they cannot work without network). */
const FETCHING_LAUNCHERS = /(^|\/)(npx|bunx|pnpx|uvx)$/;

/**
 * @param name the server's name
 * @param config its configuration
 * @param context the workspace, odek's environment, the log directory and the egress allow-list
 * @returns the broker's spec
 */
export function stdioServerSpec(
  name: string,
  config: StdioMcpServerConfig,
  context: {
    workspace: string;
    env: Readonly<Record<string, string>>;
    logDir: string;
    allowDomains: readonly string[];
  },
): StdioServerSpec {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(context.env)) {
    if (ALLOWED.test(key) && !isSecretName(key)) env[key] = value;
  }
  for (const key of config.envNames ?? []) {
    const value = context.env[key];
    if (value !== undefined) env[key] = value;
  }
  Object.assign(env, config.env ?? {});
  const at = (path: string) => isAbsolute(path) ? resolve(path) : resolve(context.workspace, path);
  return {
    name,
    argv: [config.command, ...(config.args ?? [])],
    env,
    readPaths: (config.readPaths ?? []).map(at),
    writePaths: (config.writablePaths ?? []).map(at),
    network: config.network ?? false,
    logFile: serverLogFile(context.logDir, name),
    allowDomains: [...context.allowDomains],
  };
}

/** `<logDir>/<name>.log`. */
export function serverLogFile(logDir: string, name: string): string {
  return join(logDir, `${name}.log`);
}

/**
 * A hint when a server failed to start: `npx` (and its kin) download the package at start,
 * which a sandbox without network cannot do.
 */
export function launchHint(config: StdioMcpServerConfig): string {
  if (!FETCHING_LAUNCHERS.test(config.command) || config.network) return "";
  return ` ${config.command} downloads the package when it starts, which cannot work in a sandbox without network: install the server (npm install -g <package>, or into a folder) and configure "command": "node" with the path of its entry file in "args".`;
}
