/**
 * What `odek mcp serve` offers (private to `mcp/`): odek's built-in tools as MCP tools — the
 * catalogue's file, compute, program and web tools, with their JSON Schemas as the model sees
 * them — and `run_task`, a whole agent task. Core tools (`plan`, `clarify`) belong to a model's
 * run and `delegate_tasks` is never offered.
 *
 * @module
 */
import { runtimeTools } from "../runtime/runtime_tools.ts";
import { TOOL_CATALOGUE } from "../../tools/_catalogue/mod.ts";

/** One tool as `tools/list` shows it. */
export interface ServedTool {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  annotations?: Record<string, unknown>;
}

/** The name of the whole-task tool. */
export const RUN_TASK = "run_task";

/** Tools never offered over MCP. */
const HIDDEN = new Set(["delegate_tasks"]);

/** The built-in tools an MCP client may call directly. */
export function servedBuiltins(): ServedTool[] {
  const builtins = TOOL_CATALOGUE.filter((entry) =>
    entry.category !== "core" && !HIDDEN.has(entry.name)
  );
  const specs = new Map(runtimeTools().specs.map((s) => [s.function.name, s.function]));
  return builtins.map((entry) => {
    const spec = specs.get(entry.name)!;
    return {
      name: entry.name,
      description:
        `${spec.description} (odek built-in: classified and run in odek's sandbox; a call that would ask is put to you)`,
      inputSchema: { type: "object", ...spec.parameters },
    };
  });
}

/** `run_task`'s entry. */
export function runTaskTool(workspaces: readonly string[]): ServedTool {
  const where = workspaces.length === 0
    ? "odek's dedicated workspace"
    : `odek's dedicated workspace, or one of: ${workspaces.join(", ")}`;
  return {
    name: RUN_TASK,
    description:
      `Run a whole task with odek's agent (its model, tools and sandbox) in ${where}. Progress is sent as progress notifications when you pass a progress token; the result is the final answer and the files changed.`,
    inputSchema: {
      type: "object",
      properties: {
        task: { type: "string", minLength: 1, description: "What the agent should do" },
        workspace: {
          type: "string",
          description:
            "An absolute workspace from odek's configuration (mcpServe.workspaces); default the dedicated workspace",
        },
      },
      required: ["task"],
      additionalProperties: false,
    },
    annotations: { openWorldHint: true },
  };
}
