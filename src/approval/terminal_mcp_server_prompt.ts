/**
 * The terminal's answer to "may this project's MCP server start?" (`approveProjectMcpServers`'s
 * `ask`), read from the controlling terminal like every approval.
 *
 * @module
 */
import type {
  McpServerAnswer,
  McpServerApprovalRequest,
} from "../config/approve_project_mcp_servers.ts";
import { escapeControl } from "./_render_call.ts";
import { type PromptWriter, withTerminal } from "./_tty_lines.ts";

/** Options for {@linkcode terminalMcpServerPrompt}. */
export interface TerminalMcpServerPromptOptions {
  /** The terminal device answers are read from. @default "/dev/tty" */
  ttyPath?: string;
  /** Where the prompt is written. @default Deno.stderr */
  output?: PromptWriter;
}

/**
 * An `ask` for project MCP servers: it shows the request's text (command, arguments, environment
 * names, sandbox; control characters made visible) and reads `y` (start it for this session),
 * `a` (start it and remember this entry) or anything else (do not start it) from the terminal,
 * never from standard input. With no terminal, or at end of input, the answer is `deny`.
 *
 * @param options terminal path and output
 * @returns the `ask` function
 *
 * @example Without a terminal the server stays inert
 * ```ts
 * import { terminalMcpServerPrompt } from "./terminal_mcp_server_prompt.ts";
 * const ask = terminalMcpServerPrompt({ ttyPath: "/nonexistent/tty" });
 * const request = { server: "s", file: "/w/odek.jsonc", project: "/w", entry: { command: "node" }, sha256: "0".repeat(64), text: "…" };
 * if (await ask(request) !== "deny") throw new Error();
 * ```
 */
export function terminalMcpServerPrompt(
  options: TerminalMcpServerPromptOptions = {},
): (request: McpServerApprovalRequest, signal?: AbortSignal) => Promise<McpServerAnswer> {
  const ttyPath = options.ttyPath ?? "/dev/tty";
  const output = options.output ?? Deno.stderr;
  return async (request, signal) => {
    signal?.throwIfAborted();
    return await withTerminal(ttyPath, output, signal, () => "deny" as const, async (tty) => {
      const text = request.text.split("\n").map((line) => escapeControl(line)).join("\n");
      await tty.write(
        `\nodek: ${text}\nStart it? [y = for this session / a = always, for this entry / N] `,
      );
      const line = (await tty.readLine())?.trim().toLowerCase();
      return line === "y" || line === "yes"
        ? "once"
        : line === "a" || line === "always"
        ? "always"
        : "deny";
    });
  };
}
