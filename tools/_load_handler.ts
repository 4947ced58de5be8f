/**
 * How a tool child imports the handler a catalogue entry names (`entry.handler`).
 *
 * Each child's entry file (`files.ts`, `compute.ts`, `web.ts`) lists its handler modules as
 * string-literal imports ({@linkcode HandlerModules}): Deno analyses those statically, so a child
 * imports its handlers without read permission on `tools/` (its `--allow-read` covers the
 * workspace alone, design §2), and its module graph holds its own category's handlers and
 * nothing else (an import with a computed part would bring every file of `tools/` into the graph
 * of every child). Only a listed module can be imported, and only the catalogue names one: nothing
 * a request carries ever reaches an import.
 *
 * @module
 */
import type { ToolHandler } from "./_catalogue/child_server.ts";
import type { ChildToolEntry } from "./_catalogue/tool_entry.ts";

/**
 * The handler modules one child may import, by file name (`_read_file.ts`), each a function that
 * imports it with a string literal.
 */
export type HandlerModules = Readonly<
  Record<string, () => Promise<Record<string, unknown>>>
>;

/**
 * Import an entry's handler module and return the named export.
 *
 * @param entry a child tool's catalogue entry (or its name and handler, e.g. a fast check's)
 * @param modules the child's handler modules
 * @returns the handler
 * @throws {TypeError} when `entry.handler.module` is not one of `modules`, or when the module has
 *   no function export of that name
 *
 * @example
 * ```ts
 * import { loadHandler } from "./_load_handler.ts";
 * import { FILE_TOOLS } from "./_catalogue/file_tools.ts";
 * import { FILE_HANDLER_MODULES } from "./files.ts";
 * const handler = await loadHandler(FILE_TOOLS[0], FILE_HANDLER_MODULES);
 * if (typeof handler !== "function") throw new Error("no handler");
 * ```
 */
export async function loadHandler(
  entry: Pick<ChildToolEntry, "name" | "handler">,
  modules: HandlerModules,
): Promise<ToolHandler> {
  const { module, export: name } = entry.handler;
  const load = Object.hasOwn(modules, module) ? modules[module] : undefined;
  if (load === undefined) {
    throw new TypeError(
      `The handler module of ${entry.name}, ${module}, is not one its child imports: list it in the child's handler modules`,
    );
  }
  const loaded = await load();
  const handler = loaded[name];
  if (typeof handler !== "function") {
    throw new TypeError(
      `${module} has no function export ${name} (the handler of ${entry.name})`,
    );
  }
  return handler as ToolHandler;
}
