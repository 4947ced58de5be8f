/**
 * The compute child: a long-lived program the core runs with no permissions at all (no
 * `--allow-*` flag, and inside bwrap no workspace mounted): it can read no file, reach no network,
 * see no environment variable and run nothing. It serves the catalogue's `compute` entries
 * (`_catalogue/compute_tools.ts`) with the child protocol; the request's `workspace` is ignored.
 *
 * @module
 */
import { ToolChildServer } from "./_catalogue/child_server.ts";
import { COMPUTE_TOOLS } from "./_catalogue/compute_tools.ts";
import { streamTransport } from "./_catalogue/line_transport.ts";
import { loadHandler } from "./_load_handler.ts";

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
    entries: COMPUTE_TOOLS,
    load: loadHandler,
  });
}

if (import.meta.main) {
  await computeToolServer().serve(
    streamTransport(Deno.stdin.readable, Deno.stdout.writable),
  );
}
