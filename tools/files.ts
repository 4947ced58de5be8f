/**
 * The file-tool child: a long-lived program run by the core inside bwrap with scoped Deno
 * permissions (design §2), one per scope. It serves the catalogue's `files` entries
 * (`_catalogue/file_tools.ts`) with the child protocol (`_catalogue/child_protocol.ts`, JSON
 * lines on stdio) and exits when stdin closes. Every target is realpathed and must lie inside
 * the request's workspace (or an added root).
 *
 * @module
 */
import { ToolChildServer } from "./_catalogue/child_server.ts";
import { FILE_TOOLS } from "./_catalogue/file_tools.ts";
import { streamTransport } from "./_catalogue/line_transport.ts";
import { loadHandler } from "./_load_handler.ts";

/**
 * The file-tool child's server: its registry is the catalogue's `files` entries.
 *
 * @returns a server for the file tools
 *
 * @example Refuse a tool this child does not serve
 * ```ts
 * import { fileToolServer } from "./files.ts";
 * const answer = await fileToolServer().answer(
 *   '{"type":"call","id":1,"tool":"nope","args":{},"workspace":"/tmp"}',
 * );
 * if (answer?.type !== "result" || answer.ok || answer.error.kind !== "unknown_tool") {
 *   throw new Error(JSON.stringify(answer));
 * }
 * ```
 */
export function fileToolServer(): ToolChildServer {
  return new ToolChildServer({
    name: "file-tool",
    entries: FILE_TOOLS,
    load: loadHandler,
  });
}

if (import.meta.main) {
  await fileToolServer().serve(
    streamTransport(Deno.stdin.readable, Deno.stdout.writable),
  );
}
