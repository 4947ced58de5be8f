/**
 * The one place the runtime composes the tools a run offers the model: the built-in tools of the
 * catalogue (`tools/_catalogue/`) plus the tool providers a surface passes (MCP servers,
 * `delegate_tasks`, a library user's tools), so every surface offers the same tools.
 *
 * @module
 */
import type { ToolProvider } from "../loop/tool_provider.ts";
import { ToolSet } from "../loop/tool_set.ts";

/**
 * The tools every run of a session host offers: the built-in tools and the given providers.
 *
 * @param providers tools besides the built-in ones, in the order the model should see them
 * @returns the run's {@linkcode ToolSet} (the loop looks every call up in it, once)
 * @throws {OdekError} `CONFIG_INVALID` when a provided tool's name is taken or invalid
 *
 * @example The built-in tools
 * ```ts
 * import { runtimeTools } from "./runtime_tools.ts";
 * const tools = runtimeTools();
 * if (!tools.specs.some((spec) => spec.function.name === "shell")) throw new Error("no shell");
 * ```
 */
export function runtimeTools(providers: readonly ToolProvider[] = []): ToolSet {
  return new ToolSet({ providers });
}
