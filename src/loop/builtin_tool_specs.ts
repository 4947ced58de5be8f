/**
 * The built-in tools as the model sees them.
 *
 * @module
 */
import type { ToolSpec } from "../llm/model.ts";
import { ToolSet } from "./tool_set.ts";

/**
 * The tool list as the model sees it (OpenAI `tools[]`), with JSON schemas generated from the
 * catalogue's zod schemas: the specs of a {@linkcode ToolSet} without providers.
 *
 * @returns one spec per built-in tool, in catalogue order
 *
 * @example
 * ```ts
 * import { builtinToolSpecs } from "./builtin_tool_specs.ts";
 * const names = builtinToolSpecs().map((t) => t.function.name);
 * if (!names.includes("shell")) throw new Error("shell missing");
 * ```
 */
export function builtinToolSpecs(): ToolSpec[] {
  return new ToolSet().specs;
}
