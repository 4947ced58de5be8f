/**
 * The built-in tools as the model sees them.
 *
 * @module
 */
import { z } from "zod";
import { BUILTIN_TOOLS } from "../broker/builtin_tools.ts";
import type { ToolSpec } from "../llm/model.ts";

/**
 * The tool list as the model sees it (OpenAI `tools[]`), with JSON schemas generated from zod.
 *
 * @example
 * ```ts
 * import { builtinToolSpecs } from "./builtin_tool_specs.ts";
 * const names = builtinToolSpecs().map((t) => t.function.name);
 * if (!names.includes("shell")) throw new Error("shell missing");
 * ```
 */
export function builtinToolSpecs(): ToolSpec[] {
  return BUILTIN_TOOLS.map((tool) => {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(tool.schema, {
      io: "input",
    }) as Record<
      string,
      unknown
    >;
    return {
      type: "function" as const,
      function: { name: tool.name, description: tool.description, parameters },
    };
  });
}
