/**
 * What an MCP server's failure says to the model and the operator (private to `mcp/`): for a
 * stdio server that exited, its exit code, the tail of its stderr log and the log's path, and a
 * hint when its launcher needs network.
 *
 * @module
 */
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { OdekError } from "../_util/odek_error.ts";
import type { StdioServerProcess } from "../broker/stdio_server.ts";
import { isHttpServer, type McpServerConfig } from "../config/mcp_server_config.ts";
import { launchHint } from "./_stdio_spec.ts";

/**
 * @param error what the SDK or odek threw
 * @param context the server, what it was doing, its config and process
 * @returns one message
 */
export async function describeFailure(
  error: unknown,
  context: {
    server: string;
    doing: string;
    config: McpServerConfig;
    process?: StdioServerProcess;
  },
): Promise<string> {
  const { server, doing, process, config } = context;
  const message = error instanceof Error ? error.message : String(error);
  const closed = (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) ||
    /connection closed|closed during/i.test(message);
  if (closed && process) {
    const code = await Promise.race([
      process.exited,
      new Promise<null>((r) => setTimeout(() => r(null), 1000)),
    ]);
    const tail = await logTail(process.logFile);
    const hint = isHttpServer(config) ? "" : launchHint(config);
    return `MCP server ${server} exited${
      code === null ? "" : ` (exit code ${code})`
    } while ${doing}.${tail ? ` Its last output: ${tail}` : ""} Log: ${process.logFile}.${hint}`;
  }
  if (error instanceof OdekError) return error.message;
  return `MCP server ${server} failed while ${doing}: ${message}`;
}

/** The last stderr lines written since the server's last start (at most 600 characters). */
async function logTail(file: string): Promise<string> {
  try {
    const text = await Deno.readTextFile(file);
    const since = text.slice(text.lastIndexOf("--- "));
    const lines = since.split("\n").slice(1).filter((l) =>
      l.trim() !== "" && !l.startsWith("stdout")
    );
    return lines.slice(-5).join(" | ").slice(-600);
  } catch {
    return "";
  }
}
