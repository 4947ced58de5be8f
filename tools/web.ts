/**
 * The web tool child: `http_request` and `browser`, run by the core in a sandbox whose network
 * namespace has only `lo`, one per scope. Requests leave through the core's egress proxy (its
 * socket is the argument `--egress-socket=<path>`, present only when the call's network part was
 * approved), which checks every destination, redirects included, at connect time. Proxy
 * environment variables are never read. It serves the catalogue's `web` entries
 * (`_catalogue/web_tools.ts`) with the child protocol.
 *
 * @module
 */
import { ToolChildServer } from "./_catalogue/child_server.ts";
import { stdioTransport } from "./_catalogue/stdio_transport.ts";
import type { ChildToolEntry } from "./_catalogue/tool_entry.ts";
import { type HandlerModules, loadHandler } from "./_load_handler.ts";
import { EgressClient } from "./_web_fetch.ts";

/** The handler modules of the web tools (string literals: see `_load_handler.ts`). */
export const WEB_HANDLER_MODULES: HandlerModules = {
  "_web_tools.ts": () => import("./_web_tools.ts"),
};

/**
 * The web child's server: its registry is the catalogue's `web` entries, and every handler gets
 * `egress` in its context.
 *
 * @param egress the child's way out
 * @returns a server for the web tools
 *
 * @example Without network a call is denied as data
 * ```ts
 * import { webToolServer } from "./web.ts";
 * import { EgressClient } from "./_web_fetch.ts";
 * const answer = await webToolServer(new EgressClient(undefined)).answer(
 *   '{"type":"call","id":1,"tool":"browser","args":{"url":"http://127.0.0.1:9/"},"workspace":"/"}',
 * );
 * if (answer?.type !== "result" || answer.ok || answer.error.kind !== "denied") {
 *   throw new Error(JSON.stringify(answer));
 * }
 * ```
 */
export function webToolServer(egress: EgressClient): ToolChildServer {
  return new ToolChildServer({
    name: "web",
    entries: async () => (await import("./_catalogue/web_tools.ts")).WEB_TOOLS,
    services: { egress },
    load: (entry: ChildToolEntry) => loadHandler(entry, WEB_HANDLER_MODULES),
  });
}

if (import.meta.main) {
  const flag = Deno.args.find((arg) => arg.startsWith("--egress-socket="));
  const egress = new EgressClient(flag?.slice("--egress-socket=".length));
  try {
    await webToolServer(egress).serve(
      stdioTransport(Deno.stdin, Deno.stdout),
    );
  } finally {
    egress.close();
  }
}
