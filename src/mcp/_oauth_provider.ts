/**
 * odek's OAuth client for one HTTP MCP server (private to `mcp/`): the SDK's
 * `OAuthClientProvider` (the SDK runs the flow: protected-resource metadata, authorization-server
 * discovery with `iss` checks, PKCE, client ID metadata documents or dynamic registration,
 * resource indicators, refresh) backed by an {@linkcode OAuthStore} file, with the redirect
 * received on a loopback listener and the browser step handed to an opener.
 *
 * @module
 */
import type {
  OAuthClientInformationContext,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { OdekError } from "../_util/odek_error.ts";
import type { HttpMcpServerConfig } from "../config/mcp_server_config.ts";
import type { OAuthRecord, OAuthStore } from "./oauth_store.ts";

/**
 * The browser step: show the authorization URL to the operator (and open it where a browser is
 * available), or — in tests — follow it. It returns once the URL was handed over; the redirect
 * arrives on odek's loopback listener.
 */
export type AuthorizationOpener = (
  url: URL,
  server: string,
  signal?: AbortSignal,
) => Promise<void>;

/** How long a login waits for the browser's redirect. */
const CALLBACK_WAIT_MS = 5 * 60_000;

/** Options of {@linkcode McpOAuthProvider}. */
export interface McpOAuthProviderOptions {
  server: string;
  config: HttpMcpServerConfig;
  store: OAuthStore;
  /** The browser step; without one a login is refused (run `odek mcp login <server>`). */
  opener?: AuthorizationOpener;
}

/** An `OAuthClientProvider` for one server, stored in a file, redirected to loopback. */
export class McpOAuthProvider implements OAuthClientProvider {
  readonly #options: McpOAuthProviderOptions;
  readonly #url: string;
  #record: OAuthRecord;
  #verifier: string | undefined;
  #state: string | undefined;
  #listener: Deno.HttpServer<Deno.NetAddr> | undefined;
  #callback: PromiseWithResolvers<URLSearchParams> | undefined;
  /** Set once the browser step was started: the caller then waits for the callback. */
  pending = false;

  private constructor(options: McpOAuthProviderOptions, record: OAuthRecord) {
    this.#options = options;
    this.#url = options.config.url;
    this.#record = record;
  }

  /** Load the server's stored state and build its provider. */
  static async open(options: McpOAuthProviderOptions): Promise<McpOAuthProvider> {
    const record = await options.store.load(options.server, options.config.url) ??
      { serverUrl: options.config.url };
    return new McpOAuthProvider(options, record);
  }

  get #oauth() {
    return this.#options.config.oauth || {};
  }

  /** `http://127.0.0.1:<port>/callback`; the listener starts on first use. */
  get redirectUrl(): string {
    return `http://127.0.0.1:${this.#listen().port}/callback`;
  }

  /** The configured client ID metadata document URL (CIMD), if any. */
  get clientMetadataUrl(): string | undefined {
    return this.#oauth.clientMetadataUrl;
  }

  /** What odek registers as. */
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "odek",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.#oauth.clientSecret ? "client_secret_basic" : "none",
      ...(this.#oauth.scope ? { scope: this.#oauth.scope } : {}),
      application_type: "native",
    } as OAuthClientMetadata;
  }

  /** A fresh random `state` per authorization request. */
  state(): string {
    this.#state = crypto.randomUUID();
    return this.#state;
  }

  /**
   * The registration for the authorization server `ctx.issuer` (credentials are bound to the
   * issuer that made them, SEP-2352: a server that moved to another authorization server gets a
   * new registration), or the configured client id.
   */
  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    const { clientId, clientSecret } = this.#oauth;
    if (clientId) {
      return { client_id: clientId, ...(clientSecret ? { client_secret: clientSecret } : {}) };
    }
    const key = ctx?.issuer ?? this.#record.issuer ?? "";
    return this.#record.clients?.[key] as StoredOAuthClientInformation | undefined;
  }

  async saveClientInformation(
    info: StoredOAuthClientInformation,
    ctx?: OAuthClientInformationContext,
  ): Promise<void> {
    const key = ctx?.issuer ?? issuerOf(info) ?? "";
    await this.#save({ clients: { ...this.#record.clients, [key]: { ...info } } });
  }

  /** The tokens of `ctx.issuer`; without it, the newest (the transport's per-request read). */
  tokens(ctx?: OAuthClientInformationContext): StoredOAuthTokens | undefined {
    const key = ctx?.issuer ?? this.#record.issuer ?? "";
    return this.#record.tokens?.[key] as StoredOAuthTokens | undefined;
  }

  async saveTokens(tokens: StoredOAuthTokens, ctx?: OAuthClientInformationContext): Promise<void> {
    const key = ctx?.issuer ?? issuerOf(tokens) ?? "";
    await this.#save({
      tokens: { ...this.#record.tokens, [key]: { ...tokens } },
      issuer: key,
      savedAt: Date.now(),
    });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#record.discovery as OAuthDiscoveryState | undefined;
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.#save({ discovery: { ...state } as Record<string, unknown> });
  }

  /**
   * Hand the authorization URL to the opener (only http or https URLs). Without an opener the
   * login is refused with what to run.
   */
  async redirectToAuthorization(url: URL): Promise<void> {
    const { server, opener } = this.#options;
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new OdekError(
        "MCP_SERVER_FAILED",
        `MCP server ${server}'s authorization server sent a ${url.protocol} URL; odek opens only http(s) URLs`,
      );
    }
    if (!opener) {
      throw new OdekError(
        "MCP_SERVER_FAILED",
        `MCP server ${server} needs you to log in: run "odek mcp login ${server}"`,
      );
    }
    this.#callback = Promise.withResolvers<URLSearchParams>();
    this.#callback.promise.catch(() => {});
    this.pending = true;
    await opener(url, server);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) {
      throw new OdekError("MCP_SERVER_FAILED", "The OAuth flow lost its PKCE code verifier");
    }
    return this.#verifier;
  }

  async invalidateCredentials(
    scope: "all" | "client" | "tokens" | "verifier" | "discovery",
  ): Promise<void> {
    if (scope === "verifier") return void (this.#verifier = undefined);
    const next: OAuthRecord = { ...this.#record };
    if (scope === "all" || scope === "tokens") delete next.tokens;
    if (scope === "all" || scope === "client") delete next.clients;
    if (scope === "all" || scope === "discovery") delete next.discovery;
    this.#record = next;
    await this.#options.store.save(this.#options.server, next);
  }

  /**
   * Wait for the redirect of the authorization started last (its `state` checked).
   *
   * @returns the callback's query (`code`, `state`, `iss`)
   * @throws {OdekError} `MCP_SERVER_FAILED` when the authorization server sent an error, the
   *   state does not match, or nothing came within 5 minutes
   */
  async waitForCallback(signal?: AbortSignal): Promise<URLSearchParams> {
    const callback = this.#callback;
    if (!callback) throw new OdekError("MCP_SERVER_FAILED", "No authorization was started");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new OdekError(
              "MCP_SERVER_FAILED",
              `MCP server ${this.#options.server}: no browser redirect came back within 5 minutes; run "odek mcp login ${this.#options.server}" again`,
            ),
          ),
        CALLBACK_WAIT_MS,
      );
    });
    const aborted = new Promise<never>((_, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    try {
      return await Promise.race([callback.promise, timeout, aborted]);
    } finally {
      clearTimeout(timer);
      this.pending = false;
      this.#callback = undefined;
    }
  }

  /** Every token and client secret held (the redaction of this server's results). */
  secrets(): string[] {
    const values: string[] = [];
    for (const tokens of Object.values(this.#record.tokens ?? {})) {
      for (const key of ["access_token", "refresh_token", "id_token"]) {
        if (typeof tokens[key] === "string") values.push(tokens[key] as string);
      }
    }
    for (const client of Object.values(this.#record.clients ?? {})) {
      if (typeof client.client_secret === "string") values.push(client.client_secret);
    }
    return values.filter((v) => v.length >= 8);
  }

  /** Stop the loopback listener. */
  async close(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.shutdown().catch(() => {});
  }

  #listen(): Deno.NetAddr {
    if (this.#listener) return this.#listener.addr;
    const stored = Object.values(this.#record.clients ?? {})
      .flatMap((c) => (c.redirect_uris as string[] | undefined) ?? [])[0];
    const storedPort = stored ? Number(new URL(stored).port) : 0;
    const port = this.#oauth.callbackPort ?? storedPort;
    const serve = (p: number) =>
      Deno.serve({
        hostname: "127.0.0.1",
        port: p,
        onListen: () => {},
      }, (request) => this.#onCallback(request));
    try {
      this.#listener = serve(port);
    } catch (error) {
      if (port === 0 || this.#oauth.callbackPort !== undefined) throw error;
      this.#listener = serve(0); // the old port is taken: register anew with this one
    }
    return this.#listener.addr;
  }

  #onCallback(request: Request): Response {
    const url = new URL(request.url);
    if (url.pathname !== "/callback") return new Response("Not found", { status: 404 });
    const params = url.searchParams;
    const callback = this.#callback;
    const page = (text: string, status = 200) =>
      new Response(`<!doctype html><title>odek</title><p>${text}</p>`, {
        status,
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    if (!callback) return page("No odek login is waiting for this.", 400);
    if (this.#state !== undefined && params.get("state") !== this.#state) {
      callback.reject(
        new OdekError(
          "MCP_SERVER_FAILED",
          `MCP server ${this.#options.server}: the authorization redirect carried the wrong state; nothing was stored`,
        ),
      );
      return page("This redirect does not belong to the login odek started.", 400);
    }
    const error = params.get("error");
    if (error) {
      const text = params.get("error_description") ?? error;
      callback.reject(
        new OdekError(
          "MCP_SERVER_FAILED",
          `MCP server ${this.#options.server}: the authorization server refused the login: ${text}`,
        ),
      );
      return page("The login was refused. You may close this window.");
    }
    callback.resolve(params);
    return page("odek is logged in. You may close this window.");
  }

  async #save(part: Partial<OAuthRecord>): Promise<void> {
    this.#record = { ...this.#record, ...part, serverUrl: this.#url };
    await this.#options.store.save(this.#options.server, this.#record);
  }
}

function issuerOf(value: object): string | undefined {
  const issuer = (value as { issuer?: unknown }).issuer;
  return typeof issuer === "string" ? issuer : undefined;
}
