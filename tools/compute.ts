/**
 * The compute child: a long-lived program the core runs with no permissions at all (no
 * `--allow-*` flag, and inside bwrap no workspace mounted): it can read no file, reach no network,
 * see no environment variable and run nothing. It serves the catalogue's `compute` entries
 * (`_catalogue/compute_tools.ts`) with the child protocol; the request's `workspace` is ignored.
 * Like the file child it imports the entries on its first call and each handler on its tool's.
 *
 * @module
 */
import { ToolChildServer } from "./_catalogue/child_server.ts";
import { stdioTransport } from "./_catalogue/stdio_transport.ts";
import type { ChildToolEntry } from "./_catalogue/tool_entry.ts";
import { type HandlerModules, loadHandler } from "./_load_handler.ts";

/** The handler modules of the compute tools (string literals: see `_load_handler.ts`). */
export const COMPUTE_HANDLER_MODULES: HandlerModules = {
  "_math_eval.ts": () => import("./_math_eval.ts"),
  "_diff_texts.ts": () => import("./_diff_texts.ts"),
  "_json_query.ts": () => import("./_json_query.ts"),
  "_checksum.ts": () => import("./_checksum.ts"),
  "_base64.ts": () => import("./_base64.ts"),
};

/**
 * The compute child's server: its registry is the catalogue's `compute` entries.
 *
 * @returns a server for the compute tools
 *
 * @example
 * ```ts
 * import { computeToolServer } from "./compute.ts";
 * const answer = await computeToolServer().answer(
 *   '{"type":"call","id":1,"tool":"math_eval","args":{"expression":"6*7"},"workspace":"/"}',
 * );
 * if (answer?.type !== "result" || !answer.ok || answer.output !== "42") {
 *   throw new Error(JSON.stringify(answer));
 * }
 * ```
 */
export function computeToolServer(): ToolChildServer {
  return new ToolChildServer({
    name: "compute",
    entries: async () => (await import("./_catalogue/compute_tools.ts")).COMPUTE_TOOLS,
    load: (entry: ChildToolEntry) => loadHandler(entry, COMPUTE_HANDLER_MODULES),
  });
}

if (import.meta.main) {
  await computeToolServer().serve(
    stdioTransport(Deno.stdin, Deno.stdout),
  );
}
