/**
 * The CLI's browser step of an MCP server's OAuth login: the authorization URL printed on
 * stderr (escaped), and opened in the browser when this machine has a desktop.
 *
 * @module
 */
import { openInBrowser } from "../broker/open_in_browser.ts";
import type { AuthorizationOpener } from "../mcp/mcp_tools.ts";
import type { CliIO } from "./cli_io.ts";
import { terminalSafe } from "./terminal_safe.ts";

/**
 * @param io where the URL is printed, and the environment (`DISPLAY`)
 * @returns the opener
 *
 * @example
 * ```ts
 * import { terminalOpener } from "./terminal_opener.ts";
 * let out = "";
 * const io = { stderr: { write: (t: string) => void (out += t) }, env: {} } as never;
 * await terminalOpener(io)(new URL("http://127.0.0.1:9/authorize?x=1"), "api");
 * if (!out.includes("http://127.0.0.1:9/authorize?x=1")) throw new Error(out);
 * ```
 */
export function terminalOpener(io: CliIO): AuthorizationOpener {
  return async (url, server) => {
    io.stderr.write(
      `odek: to log in to MCP server ${
        terminalSafe(server, true)
      }, open this URL in a browser:\n  ${terminalSafe(url.href, true)}\n`,
    );
    if (await openInBrowser(url, io.env)) io.stderr.write("odek: (opened in your browser)\n");
    io.stderr.write("odek: waiting for the browser to come back to odek…\n");
  };
}
