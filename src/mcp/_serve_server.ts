/**
 * One MCP server instance of `odek mcp serve` (private to `mcp/`, loads the SDK): the SDK's
 * low-level `Server` with `tools/list` and `tools/call` answered by the shared
 * {@linkcode McpService}. A serving entry makes one per connection (stdio), per 2025-11-25 HTTP
 * session, or per 2026-07-28 request.
 *
 * @module
 */
import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { OdekError } from "../_util/odek_error.ts";
import type { ElicitForm, ElicitReply, McpAsker } from "./_serve_operator.ts";
import type { McpService } from "./_serve_service.ts";
import type { ModernApprovals } from "./_serve_input_required.ts";
import { RUN_TASK } from "./_serve_tools.ts";

/** The server's name in `initialize` and `server/discover`. */
export const SERVER_NAME = "odek";

/**
 * A server instance for one serving unit.
 *
 * @param service the shared engine
 * @param version odek's version
 * @param era which protocol era the instance serves
 * @param stateful whether server-to-client requests can be answered (stdio, a 2025 HTTP session)
 * @param modern the input-required approvals of 2026-07-28 requests (one per process)
 */
export function odekMcpServer(
  service: McpService,
  version: string,
  era: "legacy" | "modern",
  stateful: boolean,
  modern: ModernApprovals,
): Server {
  const server = new Server({ name: SERVER_NAME, title: "odek", version }, {
    capabilities: era === "legacy" ? { tools: {}, logging: {} } : { tools: {} },
    requestState: { verify: modern.codec.verify },
    instructions:
      "odek's built-in tools (files, programs, web) run in odek's sandbox with its classification; run_task runs a whole agent task. A call odek would ask about is put to you through elicitation when you support it, else refused with the reason.",
  });
  server.setRequestHandler("tools/list", () => ({ tools: service.list() }));
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const { name, arguments: args = {} } = request.params;
    if (!service.has(name)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${name} (odek mcp serve offers run_task and odek's built-in tools)`,
      );
    }
    const token = ctx.mcpReq._meta?.progressToken;
    // A 2026-07-28 direct call asks through an input-required result; a run_task cannot be
    // paused that way, so its calls that would ask are refused with the reason.
    const ask = era === "modern" && name !== RUN_TASK
      ? await modern.asker(ctx, name, args)
      : asker(server, ctx, era, stateful);
    try {
      const result = await service.call(name, args as Record<string, unknown>, {
        asker: ask,
        signal: ctx.mcpReq.signal,
        ...(token !== undefined
          ? {
            progress: (progress: number, message: string) =>
              ctx.mcpReq.notify({
                method: "notifications/progress",
                params: { progressToken: token, progress, message },
              }),
          }
          : {}),
      });
      const needed = (ask as { needed?: ElicitForm }).needed;
      if (needed) return await modern.ask(ctx, name, args, needed);
      return { ...result } as CallToolResult;
    } catch (error) {
      // An operator-facing fault (no API key, no sandbox) is the call's error, with its words.
      const message = error instanceof OdekError
        ? `${error.code}: ${error.message}`
        : (error as Error).message;
      return { content: [{ type: "text", text: `error (odek): ${message}` }], isError: true };
    }
  });
  return server;
}

/** Who answers this request's approvals: the client, when it can be asked. */
function asker(
  server: Server,
  ctx: ServerContext,
  era: "legacy" | "modern",
  stateful: boolean,
): McpAsker {
  const cannotAsk = era === "modern"
    ? "a run_task on 2026-07-28 cannot stop for a question (only direct calls ask, through input-required results)"
    : !stateful
    ? "this request has no session to ask on"
    : server.getClientCapabilities()?.elicitation === undefined
    ? "the MCP client does not support elicitation"
    : undefined;
  return {
    cannotAsk,
    async elicit(form: ElicitForm, signal?: AbortSignal): Promise<ElicitReply> {
      const reply = await ctx.mcpReq.elicitInput(
        { mode: "form", message: form.message, requestedSchema: form.requestedSchema } as never,
        { ...(signal ? { signal } : {}), timeout: 600_000 },
      );
      return {
        action: reply.action,
        ...(reply.content ? { content: reply.content as Record<string, unknown> } : {}),
      };
    },
  };
}
