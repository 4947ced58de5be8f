/**
 * The configuration of one MCP server (`mcpServers.<name>` in the user config, docs/mcp.md): a
 * stdio program the broker starts in a sandbox, or an HTTP endpoint. Kept in its own file so the
 * project-config layer can validate (and ask about) project servers with the same schema.
 *
 * @module
 */
import { z } from "zod";
import { isSecretName } from "../_util/is_secret_name.ts";

/** A server's name: what the model sees before `__`, and the key in `mcpServers`. */
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,29}$/;

/** Defaults of the per-server limits (odek-go §8 [v1.24]). */
export const MCP_SERVER_DEFAULTS = {
  /** Seconds one request may take before it is cancelled. */
  timeoutSeconds: 30,
  /** Bytes of one response (a stdio line, an HTTP body). */
  maxResponseBytes: 10 * 1024 * 1024,
  /** Characters of one tool result before it is cut with a notice. */
  maxResultChars: 200_000,
} as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

const common = {
  /** `false` keeps the server configured but never started. @default true */
  enabled: z.boolean().optional(),
  /**
   * Calls of every tool of this server run without asking (risk class `code_execution`:
   * allowed at `standard`, refused at `untrusted`). @default false: class `unknown`, which asks
   */
  trusted: z.boolean().optional(),
  /** Tools of this server (their MCP names) that run without asking, as `trusted` does. */
  trustedTools: z.array(z.string().min(1).max(128)).max(256).optional(),
  /** Seconds one request may take; then it is cancelled and the call fails. @default 30 */
  timeoutSeconds: z.int().min(1).max(3600).optional(),
  /** Largest response, in bytes (a stdio line, an HTTP body). @default 10 MiB */
  maxResponseBytes: z.int().min(1024).max(64 * 1024 * 1024).optional(),
  /** Characters of a tool result the model gets before a truncation notice. @default 200000 */
  maxResultChars: z.int().min(1000).max(1_000_000).optional(),
};

/** A stdio server: a program the broker starts in its sandbox. */
export const StdioMcpServerSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  /** The program: absolute, or a name on the sandbox's `PATH` (e.g. `node`). */
  command: z.string().min(1).max(4096),
  /** Its arguments. */
  args: z.array(z.string().max(65_536)).max(256).optional(),
  /**
   * Variables set for it (never `PATH`, `HOME` and the sandbox's other base variables). Values
   * here are the operator's: a secret set here is passed, and redacted from logs.
   */
  env: z.record(z.string().regex(ENV_NAME, "an environment variable name"), z.string().max(65_536))
    .optional(),
  /** Variables passed through from odek's own environment by name (secret-looking ones too). */
  envNames: z.array(z.string().regex(ENV_NAME, "an environment variable name")).max(64)
    .optional(),
  /** Network through odek's egress proxy (`HTTP(S)_PROXY`). @default false: only loopback */
  network: z.boolean().optional(),
  /**
   * Paths it may write: absolute, or relative to the workspace (`"."` makes the workspace
   * writable). @default none: the workspace is read-only
   */
  writablePaths: z.array(z.string().min(1).max(4096)).max(64).optional(),
  /**
   * Paths it may read besides `/` and the workspace (absolute or relative to the workspace):
   * where it is installed when that is under the home, which every sandbox hides.
   */
  readPaths: z.array(z.string().min(1).max(4096)).max(64).optional(),
  ...common,
});

/** An HTTP server (Streamable HTTP, with the SSE fallback). */
export const HttpMcpServerSchema = z.strictObject({
  type: z.literal("http").optional(),
  /** The endpoint, e.g. `https://mcp.example.com/mcp`. */
  url: z.url({ protocol: /^https?$/ }),
  /** Headers sent with every request (an API key: its value is redacted everywhere). */
  headers: z.record(z.string().min(1).max(256), z.string().max(8192)).optional(),
  /** OAuth 2.1 (used when the server asks for it); `false` never starts a login. */
  oauth: z.union([
    z.literal(false),
    z.strictObject({
      /** A client id registered by hand (skips client metadata documents and registration). */
      clientId: z.string().min(1).max(1024).optional(),
      /** The client secret of `clientId`, when the registration has one. */
      clientSecret: z.string().min(1).max(4096).optional(),
      /** An https URL of odek's client ID metadata document (CIMD), used as the client id. */
      clientMetadataUrl: z.url({ protocol: /^https$/ }).optional(),
      /** Scopes to ask for (space-separated). @default what the server names */
      scope: z.string().min(1).max(4096).optional(),
      /** The loopback port of the redirect (`http://127.0.0.1:<port>/callback`). @default any free port */
      callbackPort: z.int().min(1024).max(65_535).optional(),
    }),
  ]).optional(),
  ...common,
});

/** One entry of `mcpServers`. */
export const McpServerConfigSchema = z.union([StdioMcpServerSchema, HttpMcpServerSchema]);

/** What every server's entry may set (see the schemas above for each key's meaning). */
export interface McpServerCommon {
  enabled?: boolean;
  trusted?: boolean;
  trustedTools?: string[];
  timeoutSeconds?: number;
  maxResponseBytes?: number;
  maxResultChars?: number;
}

/** One stdio server's configuration ({@linkcode StdioMcpServerSchema}). */
export interface StdioMcpServerConfig extends McpServerCommon {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  envNames?: string[];
  network?: boolean;
  writablePaths?: string[];
  readPaths?: string[];
}

/** One HTTP server's configuration ({@linkcode HttpMcpServerSchema}). */
export interface HttpMcpServerConfig extends McpServerCommon {
  type?: "http";
  url: string;
  headers?: Record<string, string>;
  oauth?: false | {
    clientId?: string;
    clientSecret?: string;
    clientMetadataUrl?: string;
    scope?: string;
    callbackPort?: number;
  };
}

/** One entry of `mcpServers`. */
export type McpServerConfig = StdioMcpServerConfig | HttpMcpServerConfig;

// The schemas and the interfaces describe the same entries, both ways.
const _stdioIn: StdioMcpServerConfig = {} as z.infer<typeof StdioMcpServerSchema>;
const _stdioOut: z.infer<typeof StdioMcpServerSchema> = {} as StdioMcpServerConfig;
const _httpIn: HttpMcpServerConfig = {} as z.infer<typeof HttpMcpServerSchema>;
const _httpOut: z.infer<typeof HttpMcpServerSchema> = {} as HttpMcpServerConfig;
void [_stdioIn, _stdioOut, _httpIn, _httpOut];

/** `mcpServers`: servers by name. */
export const McpServersSchema: z.ZodType<Record<string, McpServerConfig>> = z.record(
  z.string().regex(
    MCP_SERVER_NAME_PATTERN,
    "a server name of 1-30 letters, digits, - or single _",
  ),
  McpServerConfigSchema,
);

/**
 * Whether an entry is an HTTP server.
 *
 * @example
 * ```ts
 * import { isHttpServer } from "./mcp_server_config.ts";
 * if (!isHttpServer({ url: "http://127.0.0.1:9/mcp" })) throw new Error("http");
 * if (isHttpServer({ command: "node" })) throw new Error("stdio");
 * ```
 */
export function isHttpServer(config: McpServerConfig): config is HttpMcpServerConfig {
  return "url" in config;
}

/**
 * The secrets written into `mcpServers` (values of secret-named `env` entries and headers,
 * `Authorization` and `Cookie` headers with and without their scheme, client secrets), for the
 * redactor of every sink.
 *
 * @param servers `mcpServers`
 * @returns the values to redact
 *
 * @example
 * ```ts
 * import { mcpSecretValues } from "./mcp_server_config.ts";
 * const secrets = mcpSecretValues({
 *   gh: { command: "node", env: { GITHUB_TOKEN: "ghp_x1", LOG_LEVEL: "debug" } },
 *   api: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer t0ken" } },
 * });
 * if (secrets.includes("debug") || !secrets.includes("ghp_x1") || !secrets.includes("t0ken")) {
 *   throw new Error(secrets.join());
 * }
 * ```
 */
export function mcpSecretValues(servers: Readonly<Record<string, McpServerConfig>>): string[] {
  const out: string[] = [];
  for (const config of Object.values(servers)) {
    if (isHttpServer(config)) {
      for (const [name, value] of Object.entries(config.headers ?? {})) {
        if (!isSecretName(name) && !/^(authorization|cookie|proxy-authorization)$/i.test(name)) {
          continue;
        }
        out.push(value);
        const scheme = /^\S+\s+(\S.*)$/.exec(value);
        if (scheme) out.push(scheme[1]);
      }
      if (config.oauth && config.oauth.clientSecret) out.push(config.oauth.clientSecret);
    } else {
      for (const [name, value] of Object.entries(config.env ?? {})) {
        if (isSecretName(name)) out.push(value);
      }
    }
  }
  return out.filter((value) => value.length >= 4);
}
