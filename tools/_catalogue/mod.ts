/**
 * The tool catalogue: one entry per built-in tool, shared by the core and the tool children
 * (design §1 "Tools"). The model-facing tool specs, `BUILTIN_TOOLS`, the classifier's per-tool
 * parts, the verdict without a gate and the children's registries are all derived from it;
 * `tests/catalogue/consistency_test.ts` checks that they agree. docs/tools.md has the recipe for
 * adding a tool.
 *
 * This folder imports only zod and its own files (`tests/arch/layering_test.ts`): the children
 * load it without anything of the core, and it is the one folder of `tools/` the core imports.
 *
 * @module
 */
import type { z } from "zod";
import { COMPUTE_TOOLS } from "./compute_tools.ts";
import { CORE_TOOLS } from "./core_tools.ts";
import { FILE_TOOLS } from "./file_tools.ts";
import { BG_TOOLS, SHELL_TOOL } from "./program_tools.ts";
import type { ToolEntry } from "./tool_entry.ts";
import { WEB_TOOLS } from "./web_tools.ts";

export * from "./tool_entry.ts";
export { MAX_FILE_CONTENT_BYTES } from "./file_tools.ts";
export { MAX_COMPUTE_INPUT_BYTES } from "./compute_tools.ts";

/** Every built-in tool, in the order the model sees them. */
export const TOOL_CATALOGUE = [
  ...FILE_TOOLS,
  SHELL_TOOL,
  ...COMPUTE_TOOLS,
  ...WEB_TOOLS,
  ...BG_TOOLS,
  ...CORE_TOOLS,
] as const;

/** The name of a built-in tool. */
export type BuiltinToolName = (typeof TOOL_CATALOGUE)[number]["name"];

/** The validated arguments of the built-in tool `N` (its schema's output: defaults applied). */
export type ToolArgs<N extends BuiltinToolName> = z.output<
  Extract<(typeof TOOL_CATALOGUE)[number], { name: N }>["args"]
>;

const BY_NAME: ReadonlyMap<string, ToolEntry> = new Map(
  TOOL_CATALOGUE.map((entry) => [entry.name, entry]),
);

/**
 * The catalogue entry of a built-in tool.
 *
 * @param name a tool name, e.g. `read_file`
 * @returns the entry, or `undefined` when no built-in tool has that name
 *
 * @example
 * ```ts
 * import { findBuiltinTool } from "./mod.ts";
 * if (findBuiltinTool("read_file")?.category !== "files") throw new Error("not a file tool");
 * if (findBuiltinTool("web_fetch") !== undefined) throw new Error("no such tool");
 * ```
 */
export function findBuiltinTool(name: string): ToolEntry | undefined {
  return BY_NAME.get(name);
}
