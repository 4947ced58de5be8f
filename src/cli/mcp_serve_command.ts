/**
 * `odek mcp serve` (and bare `odek mcp`): odek as an MCP server over stdio, or over Streamable
 * HTTP with `--http ADDRESS:PORT`. Standard output belongs to the protocol on stdio: everything
 * else goes to stderr.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { OdekError } from "../_util/odek_error.ts";
import type { McpServeTransport } from "../mcp/mcp_serve.ts";
import { serveMcp } from "../mcp/mcp_serve.ts";
import type { CliIO } from "./cli_io.ts";
import { cliRuntime } from "./cli_runtime.ts";
import { EXIT } from "./exit_code.ts";
import { flagError } from "./flag_error.ts";
import { HELP_TEXT } from "./help_text.ts";
import { terminalSafe } from "./terminal_safe.ts";
import { ODEK_VERSION } from "./version.ts";

/**
 * Parse `--http`'s value: `HOST:PORT`, `[IPv6]:PORT`, or a bare port (loopback).
 *
 * @param value the flag's value
 * @returns the host name (IPv6 without brackets) and the port
 * @throws {OdekError} `USAGE` for anything else
 *
 * @example
 * ```ts
 * import { parseHttpAddress } from "./mcp_serve_command.ts";
 * const a = parseHttpAddress("127.0.0.1:8765");
 * const b = parseHttpAddress("[::1]:0");
 * if (a.port !== 8765 || b.hostname !== "::1" || parseHttpAddress("9000").hostname !== "127.0.0.1") throw new Error();
 * ```
 */
export function parseHttpAddress(value: string): { hostname: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new OdekError(
      "USAGE",
      `--http needs ADDRESS:PORT (e.g. 127.0.0.1:8765, [::1]:8765, or a port), got ${
        JSON.stringify(value)
      }`,
    );
  }
  const host = match[1] ?? "127.0.0.1";
  return { hostname: host.startsWith("[") ? host.slice(1, -1) : host, port };
}

/**
 * Run `odek mcp serve` with its arguments (after `serve`).
 *
 * @returns the exit code once the server stopped (stdin closed, SIGINT or SIGTERM)
 * @throws {OdekError} `USAGE` for bad flags
 */
export async function mcpServeCommand(args: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        help: { type: "boolean", short: "h" },
        http: { type: "string" },
        "allow-non-loopback": { type: "boolean" },
        "allow-host": { type: "string", multiple: true },
      },
      allowPositionals: false,
    });
  } catch (error) {
    throw flagError(error, "mcp");
  }
  if (parsed.values.help) {
    io.stdout.write(`${HELP_TEXT.mcp}\n`);
    return EXIT.ok;
  }
  let transport: McpServeTransport = { type: "stdio" };
  if (parsed.values.http !== undefined) {
    transport = {
      type: "http",
      ...parseHttpAddress(parsed.values.http),
      allowNonLoopback: parsed.values["allow-non-loopback"] === true,
      allowHosts: (parsed.values["allow-host"] ?? []).map((h) => h.toLowerCase()),
      ...(io.env.ODEK_MCP_TOKEN ? { token: io.env.ODEK_MCP_TOKEN } : {}),
    };
  } else if (parsed.values["allow-non-loopback"] || parsed.values["allow-host"]) {
    throw new OdekError("USAGE", "--allow-non-loopback and --allow-host go with --http.");
  }
  await using runtime = await cliRuntime(io);
  let server;
  try {
    server = await serveMcp({
      runtime,
      version: ODEK_VERSION,
      transport,
      warn: (message) => io.stderr.write(`odek: warning: ${terminalSafe(message)}\n`),
    });
  } catch (error) {
    if (error instanceof RangeError) throw new OdekError("USAGE", error.message);
    if (error instanceof Deno.errors.AddrInUse) {
      throw new OdekError(
        "USAGE",
        `odek mcp serve: ${parsed.values.http} is taken: ${error.message}`,
      );
    }
    throw error;
  }
  const stop = () => void server.close();
  const removers = [io.onSignal("SIGINT", stop), io.onSignal("SIGTERM", stop)];
  try {
    if (server.tokenUrl) {
      io.stderr.write(
        `odek mcp serve: listening on ${server.tokenUrl}\n` +
          `  (or ${server.url} with "Authorization: Bearer ${server.token}"; keep the token secret)\n`,
      );
    }
    await server.finished;
  } finally {
    for (const remove of removers) remove();
    await server.close();
  }
  return EXIT.ok;
}
