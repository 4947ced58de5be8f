/**
 * The built-in tools as the broker knows them: the catalogue (`tools/_catalogue/mod.ts`), which
 * declares each tool once — name, description, argument schema, category (which child runs it),
 * classification rule and class without a gate. docs/tools.md lists every tool with its limits
 * and scope.
 *
 * @module
 */
import { TOOL_CATALOGUE, type ToolEntry } from "../../tools/_catalogue/mod.ts";

export type { ToolCategory } from "../../tools/_catalogue/mod.ts";
export { MAX_FILE_CONTENT_BYTES } from "../../tools/_catalogue/mod.ts";

/** One built-in tool: its catalogue entry. */
export type BuiltinTool = ToolEntry;

/** Largest output kept per shell stream, in bytes (1 MiB). */
export const MAX_SHELL_STREAM_BYTES = 1024 * 1024;

/** Every built-in tool, in the order the model sees them (the catalogue itself). */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = TOOL_CATALOGUE;
