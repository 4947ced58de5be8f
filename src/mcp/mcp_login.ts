/**
 * `odek mcp login <server>` / `logout`: run an HTTP server's OAuth login now (forgetting the old
 * tokens first, keeping the client registration), or forget its tokens and registration. Loads
 * the SDK; surfaces import this file only when the command runs.
 *
 * @module
 */
import { NoOperatorClarifier } from "../approval/clarifier.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import { type HttpMcpServerConfig, isHttpServer } from "../config/mcp_server_config.ts";
import type { McpServerConfig } from "../config/mcp_server_config.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { AuthorizationOpener } from "./_oauth_provider.ts";
import { ServerConnection } from "./_server_connection.ts";
import { OAuthStore } from "./oauth_store.ts";

/** Options for {@linkcode loginMcpServer}. */
export interface McpLoginOptions {
  odekHome: string;
  /** The browser step. */
  opener: AuthorizationOpener;
  /** odek's version (client info). */
  version: string;
  /** @default the global fetch */
  fetch?: typeof fetch;
}

/**
 * Log in to an HTTP server: its old tokens are forgotten, the SDK's flow runs (the opener shows
 * the authorization URL; the redirect comes back to a loopback listener), the tokens are stored
 * (`ODEK_HOME/mcp/oauth/<server>.json`, 0600), and its tools are listed to prove it worked.
 *
 * @param name the server's name in `mcpServers`
 * @param config its configuration
 * @param options `ODEK_HOME`, the opener
 * @returns how many tools the server offers
 * @throws {OdekError} `USAGE` for a stdio server or one with `oauth: false`;
 *   `MCP_SERVER_FAILED` when the login or the connection fails
 */
export async function loginMcpServer(
  name: string,
  config: McpServerConfig,
  options: McpLoginOptions,
): Promise<number> {
  const http = httpOnly(name, config);
  if (http.oauth === false) {
    throw new OdekError(
      "USAGE",
      `MCP server ${name} has "oauth": false: there is nothing to log in to`,
    );
  }
  const store = new OAuthStore(options.odekHome);
  const record = await store.load(name, http.url);
  if (record) {
    const { tokens: _forget, ...rest } = record;
    await store.save(name, rest);
  }
  const connection = new ServerConnection({
    name,
    config: http,
    broker: NO_BROKER,
    workspace: "/",
    clarifier: new NoOperatorClarifier("odek mcp login asks nothing"),
    env: {},
    logDir: `${options.odekHome}/logs/mcp`,
    store,
    opener: options.opener,
    allowDomains: [],
    version: options.version,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  try {
    await connection.connect();
    return connection.tools.length;
  } finally {
    await connection.close();
  }
}

/**
 * Forget a server's tokens and client registration.
 *
 * @returns whether anything was stored
 */
export async function logoutMcpServer(
  name: string,
  config: McpServerConfig,
  odekHome: string,
): Promise<boolean> {
  httpOnly(name, config);
  return await new OAuthStore(odekHome).remove(name);
}

function httpOnly(name: string, config: McpServerConfig): HttpMcpServerConfig {
  if (!isHttpServer(config)) {
    throw new OdekError(
      "USAGE",
      `MCP server ${name} is a stdio server: only HTTP servers log in (stdio servers take their credentials from "env")`,
    );
  }
  return config;
}

/** HTTP servers start nothing: a broker that refuses. */
const NO_BROKER: ToolBroker = {
  run: () =>
    Promise.resolve({
      ok: false,
      error: { kind: "failed", message: "no broker in odek mcp login" },
    }),
  close: () => Promise.resolve(),
  [Symbol.asyncDispose]: () => Promise.resolve(),
};
