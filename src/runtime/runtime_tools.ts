/**
 * The one place the runtime composes the tools a run offers the model: today the built-in
 * tools (`BUILTIN_TOOLS`) with their model-facing specs. The tool catalogue's providers (and
 * later MCP tools) plug in here, so every surface offers the same tools.
 *
 * @module
 */
import type { BuiltinTool } from "../broker/builtin_tools.ts";
import { BUILTIN_TOOLS } from "../broker/builtin_tools.ts";
import type { ToolSpec } from "../llm/model.ts";
import { builtinToolSpecs } from "../loop/builtin_tool_specs.ts";

/** The tools of a run: what the loop looks calls up in, and what the model is told. */
export interface RuntimeTools {
  /** Every tool a call may name (the loop refuses any other name as `unknown_tool`). */
  tools: readonly BuiltinTool[];
  /** The same tools as the model sees them (OpenAI `tools[]`), in the same order. */
  toolSpecs: ToolSpec[];
}

/**
 * The tools every run of this runtime offers.
 *
 * @returns the tools and their specs
 *
 * @example
 * ```ts
 * import { runtimeTools } from "./runtime_tools.ts";
 * const { tools, toolSpecs } = runtimeTools();
 * if (tools.length !== toolSpecs.length) throw new Error("specs and tools disagree");
 * ```
 */
export function runtimeTools(): RuntimeTools {
  return { tools: BUILTIN_TOOLS, toolSpecs: builtinToolSpecs() };
}
