/**
 * Connecting to an HTTP MCP server (private to `mcp/`): Streamable HTTP with odek's response cap,
 * the configured headers and the OAuth provider; a login the server asks for is run (the opener
 * shows the URL, the redirect comes back to the loopback listener) and the connect tried again.
 *
 * @module
 */
import { type Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type HttpMcpServerConfig, MCP_SERVER_DEFAULTS } from "../config/mcp_server_config.ts";
import { cappedFetch } from "./_capped_fetch.ts";
import type { McpOAuthProvider } from "./_oauth_provider.ts";

/** Logins tried for one request before it fails (a server that keeps asking). */
export const MAX_AUTHORIZATIONS = 2;

/**
 * @param config the server
 * @param options the fetch, the OAuth provider (absent with `oauth: false`), a client factory
 *   and the connect timeout
 * @returns the connected client and its transport
 * @throws what the SDK throws when the connect fails (after at most two logins)
 */
export async function connectHttp(
  config: HttpMcpServerConfig,
  options: {
    fetch: typeof fetch;
    oauth: McpOAuthProvider | undefined;
    newClient: () => Client;
    timeoutMs: number;
  },
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const { oauth } = options;
  const max = config.maxResponseBytes ?? MCP_SERVER_DEFAULTS.maxResponseBytes;
  const endpoint = new URL(config.url);
  // The server refused a token it had: the authorization server may have changed, so the cached
  // discovery is dropped before the SDK handles the 401 (SEP-2352; the SDK leaves this to hosts).
  const watched: typeof fetch = async (input, init) => {
    const response = await options.fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const mcp = url.origin === endpoint.origin && url.pathname === endpoint.pathname;
    if (response.status === 401 && mcp && oauth?.tokens()) {
      await oauth.invalidateCredentials("discovery");
    }
    return response;
  };
  const fetcher = cappedFetch(watched, max);
  for (let attempt = 0;; attempt++) {
    const transport = new StreamableHTTPClientTransport(endpoint, {
      fetch: fetcher,
      ...(oauth ? { authProvider: oauth } : {}),
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
    });
    const client = options.newClient();
    try {
      await client.connect(transport, { timeout: options.timeoutMs });
      return { client, transport };
    } catch (error) {
      if (!oauth?.pending || attempt >= MAX_AUTHORIZATIONS) {
        await client.close().catch(() => {});
        throw error;
      }
      await transport.finishAuth(await oauth.waitForCallback());
      await client.close().catch(() => {});
    }
  }
}
