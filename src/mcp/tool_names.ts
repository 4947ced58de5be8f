/**
 * The names the model sees for MCP tools: `<server>__<tool>`, at most 64 characters of
 * `[A-Za-z0-9_-]` (the chat-completions limit), mapped back to the server's own tool name.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** What the model may call a tool: the chat-completions function-name rule. */
export const MODEL_TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The model-facing name of `tool` on `server`: `<server>__<tool>` as it is when that is a valid
 * name of at most 64 characters; otherwise its invalid characters become `_`, it is cut to 55
 * characters and a stable suffix `_<8 hex>` (SHA-256 of server and tool) is added, so two tools
 * never share a shortened name by accident and the same tool always gets the same name.
 *
 * @param server the server's configured name
 * @param tool the tool's name as the server lists it
 * @returns the model-facing name
 *
 * @example
 * ```ts
 * import { modelToolName } from "./tool_names.ts";
 * if (modelToolName("fs", "read_file") !== "fs__read_file") throw new Error("plain");
 * const long = modelToolName("fs", "x".repeat(100));
 * if (long.length !== 64 || long !== modelToolName("fs", "x".repeat(100))) throw new Error("stable");
 * if (!/^fs__x+_[0-9a-f]{8}$/.test(long)) throw new Error(long);
 * ```
 */
export function modelToolName(server: string, tool: string): string {
  const raw = `${server}__${tool}`;
  if (MODEL_TOOL_NAME.test(raw)) return raw;
  const clean = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  const hash = createHash("sha256").update(`${server}\u0000${tool}`).digest("hex").slice(0, 8);
  return `${clean.slice(0, 55)}_${hash}`;
}

/** One tool to name. */
export interface NamedTool<T> {
  readonly server: string;
  readonly tool: string;
  readonly value: T;
}

/** What {@linkcode assignToolNames} decided. */
export interface ToolNameAssignment<T> {
  /** Model-facing name → the tool. */
  readonly names: Map<string, NamedTool<T>>;
  /** One sentence per tool left out (a collision, or a built-in's name). */
  readonly refused: string[];
}

/**
 * Name every tool; tools whose names collide are all refused (naming both), and a name taken by
 * a built-in tool is refused too (a server never shadows one).
 *
 * @param tools the tools of every server
 * @param builtins the built-in tool names
 * @returns the names and the refusals
 *
 * @example Two servers with the same tool both load
 * ```ts
 * import { assignToolNames } from "./tool_names.ts";
 * const { names, refused } = assignToolNames([
 *   { server: "a", tool: "search", value: 1 },
 *   { server: "b", tool: "search", value: 2 },
 * ], ["shell"]);
 * if (!names.has("a__search") || !names.has("b__search") || refused.length) throw new Error("both");
 * ```
 */
export function assignToolNames<T>(
  tools: readonly NamedTool<T>[],
  builtins: readonly string[],
): ToolNameAssignment<T> {
  const byName = new Map<string, NamedTool<T>[]>();
  for (const tool of tools) {
    const name = modelToolName(tool.server, tool.tool);
    byName.set(name, [...(byName.get(name) ?? []), tool]);
  }
  const names = new Map<string, NamedTool<T>>();
  const refused: string[] = [];
  const taken = new Set(builtins);
  for (const [name, group] of byName) {
    if (taken.has(name)) {
      refused.push(
        `MCP server ${group[0].server}'s tool "${
          group[0].tool
        }" would be named ${name}, which is a built-in tool: it is not offered`,
      );
      continue;
    }
    if (group.length > 1) {
      const who = group.map((t) => `"${t.tool}" of MCP server ${t.server}`).join(" and ");
      refused.push(
        `the tools ${who} would both be named ${name}: neither is offered. Rename one of the servers in mcpServers`,
      );
      continue;
    }
    names.set(name, group[0]);
  }
  return { names, refused };
}
