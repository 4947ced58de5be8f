/**
 * The file-tool child: a long-lived program run by the core inside bwrap with scoped Deno
 * permissions (design §2), one per scope. It serves the catalogue's `files` entries
 * (`_catalogue/file_tools.ts`) with the child protocol (`_catalogue/child_protocol.ts`, JSON
 * lines on stdio) and exits when stdin closes. Every target is realpathed and must lie inside
 * the request's workspace (or an added root).
 *
 * It starts with only the protocol's zod-free parts loaded. A call's arguments are checked
 * without zod (`_catalogue/file_args_check.ts`); only arguments that check cannot vouch for
 * bring in the catalogue entries (their zod schemas). Each tool's handler module is imported on
 * that tool's first call, from {@linkcode FILE_HANDLER_MODULES}.
 *
 * @module
 */
import { ToolChildServer } from "./_catalogue/child_server.ts";
import { stdioTransport } from "./_catalogue/stdio_transport.ts";
import { FILE_ARGS_CHECKS, type FileToolCheck } from "./_catalogue/file_args_check.ts";
import type { ChildToolEntry } from "./_catalogue/tool_entry.ts";
import { type HandlerModules, loadHandler } from "./_load_handler.ts";

/** The handler modules of the file tools (string literals: see `_load_handler.ts`). */
export const FILE_HANDLER_MODULES: HandlerModules = {
  "_read_file.ts": () => import("./_read_file.ts"),
  "_write_file.ts": () => import("./_write_file.ts"),
  "_patch.ts": () => import("./_patch.ts"),
  "_search_files.ts": () => import("./_search_files.ts"),
  "_glob.ts": () => import("./_glob.ts"),
  "_file_info.ts": () => import("./_file_info.ts"),
  "_tree.ts": () => import("./_tree.ts"),
  "_head_tail.ts": () => import("./_head_tail.ts"),
};

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
    entries: async () => (await import("./_catalogue/file_tools.ts")).FILE_TOOLS,
    fast: FILE_ARGS_CHECKS,
    load: (entry: ChildToolEntry | FileToolCheck) => loadHandler(entry, FILE_HANDLER_MODULES),
  });
}

if (import.meta.main) {
  await fileToolServer().serve(
    stdioTransport(Deno.stdin, Deno.stdout),
  );
}
