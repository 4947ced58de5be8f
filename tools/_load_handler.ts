/**
 * How a tool child imports the handler a catalogue entry names (`entry.handler`).
 *
 * The import is a template literal with a static prefix (`./…`) written in this file, beside
 * the handler modules: Deno analyses such an import statically, so a child imports its handlers
 * without read permission on `tools/` (its `--allow-read` covers the workspace alone, design §2).
 * Only a file directly in `tools/` can be named, and only the catalogue names one: nothing a
 * request carries ever reaches this import.
 *
 * @module
 */
import type { ToolHandler } from "./_catalogue/child_server.ts";
import type { ChildToolEntry } from "./_catalogue/tool_entry.ts";

/** A handler module's name: a TypeScript file directly in `tools/`. */
const MODULE = /^[A-Za-z0-9_-]+\.ts$/;

/**
 * Import an entry's handler module and return the named export.
 *
 * @param entry a child tool's catalogue entry
 * @returns the handler
 * @throws {TypeError} when `entry.handler.module` is not a file directly in `tools/`, or when the
 *   module has no function export of that name
 *
 * @example
 * ```ts
 * import { loadHandler } from "./_load_handler.ts";
 * import { FILE_TOOLS } from "./_catalogue/file_tools.ts";
 * const handler = await loadHandler(FILE_TOOLS[0]);
 * if (typeof handler !== "function") throw new Error("no handler");
 * ```
 */
export async function loadHandler(entry: ChildToolEntry): Promise<ToolHandler> {
  const { module, export: name } = entry.handler;
  if (!MODULE.test(module)) {
    throw new TypeError(
      `The handler module of ${entry.name} must be a file directly in tools/, not ${module}`,
    );
  }
  const loaded: Record<string, unknown> = await import(`./${module}`);
  const handler = loaded[name];
  if (typeof handler !== "function") {
    throw new TypeError(
      `${module} has no function export ${name} (the handler of ${entry.name})`,
    );
  }
  return handler as ToolHandler;
}
