/**
 * The tools of one run: the catalogue's built-in tools and the tools of the providers the
 * composition root passed, looked up by name, with the tool list the model is sent.
 *
 * @module
 */
import {
  type ArgsSchema,
  type ClassificationRule,
  TOOL_CATALOGUE,
  type ToolEntry,
} from "../../tools/_catalogue/mod.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { ToolSpec } from "../llm/model.ts";
import type { ProvidedCall, ProvidedTool, ToolProvider } from "./tool_provider.ts";

/** Where a tool of the set comes from. */
export type ToolSource =
  | { type: "builtin"; entry: ToolEntry }
  | { type: "provider"; provider: ToolProvider; tool: ProvidedTool };

/** One tool of the set. */
export interface ResolvedTool {
  readonly name: string;
  readonly description: string;
  /** The one schema its calls are validated against. */
  readonly args: ArgsSchema;
  readonly source: ToolSource;
}

/** Options for {@linkcode ToolSet}. */
export interface ToolSetOptions {
  /** The built-in tools offered. @default the whole catalogue (`TOOL_CATALOGUE`) */
  builtins?: readonly ToolEntry[];
  /** Providers of further tools (MCP servers, `delegate_tasks`, a library user's tools). @default [] */
  providers?: readonly ToolProvider[];
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tools a run offers, in the order the model sees them: the built-in tools, then each
 * provider's.
 *
 * @example The built-in tools
 * ```ts
 * import { ToolSet } from "./tool_set.ts";
 * const tools = new ToolSet();
 * if (tools.get("read_file")?.source.type !== "builtin") throw new Error("no read_file");
 * if (!tools.specs.some((spec) => spec.function.name === "shell")) throw new Error("no shell");
 * ```
 */
export class ToolSet {
  readonly #tools: ReadonlyMap<string, ResolvedTool>;
  #specs: ToolSpec[] | undefined;

  /**
   * @param options the built-in tools and the providers
   * @throws {OdekError} `CONFIG_INVALID` when a provider offers a name that is taken or not a
   *   valid tool name
   */
  constructor(options: ToolSetOptions = {}) {
    const tools = new Map<string, ResolvedTool>();
    for (const entry of options.builtins ?? TOOL_CATALOGUE) {
      const { name, description, args } = entry;
      tools.set(name, { name, description, args, source: { type: "builtin", entry } });
    }
    for (const provider of options.providers ?? []) {
      for (const tool of provider.list()) {
        const taken = tools.get(tool.name);
        if (!TOOL_NAME.test(tool.name) || taken !== undefined) {
          const why = taken === undefined
            ? "is not a valid tool name (1-64 letters, digits, _ or -)"
            : `is already a tool of ${sourceName(taken.source)}`;
          throw new OdekError(
            "CONFIG_INVALID",
            `${provider.name} offers a tool "${tool.name}", which ${why}: rename it in that provider's configuration or leave the provider out`,
          );
        }
        const { name, description, args } = tool;
        tools.set(name, { name, description, args, source: { type: "provider", provider, tool } });
      }
    }
    this.#tools = tools;
  }

  /**
   * Look a tool up.
   *
   * @param name the name the model called
   * @returns the tool, or `undefined`
   */
  get(name: string): ResolvedTool | undefined {
    return this.#tools.get(name);
  }

  /** Every tool name, in order. */
  get names(): string[] {
    return [...this.#tools.keys()];
  }

  /** The tool list as the model sees it (OpenAI `tools[]`): JSON schemas of the argument input. */
  get specs(): ToolSpec[] {
    this.#specs ??= [...this.#tools.values()].map((tool) => {
      const { $schema: _drop, ...parameters } = tool.args["~standard"].jsonSchema.input({
        target: "draft-2020-12",
      });
      return {
        type: "function" as const,
        function: { name: tool.name, description: tool.description, parameters },
      };
    });
    return this.#specs;
  }
}

/**
 * The rule a provided tool's call is classified by (`undefined` for a built-in tool: the
 * classifier reads its catalogue entry). A provider that throws makes the call `unknown`.
 *
 * @param tool the tool
 * @param call the validated call
 * @returns the provider's rule, or `undefined`
 */
export function providedRule(
  tool: ResolvedTool,
  call: ProvidedCall,
): ClassificationRule | undefined {
  if (tool.source.type !== "provider") return undefined;
  try {
    return tool.source.provider.classify(call);
  } catch (error) {
    return {
      kind: "fixed",
      class: "unknown",
      detail: `${tool.source.provider.name} could not classify it (${(error as Error).message})`,
    };
  }
}

function sourceName(source: ToolSource): string {
  return source.type === "builtin" ? "odek (built in)" : source.provider.name;
}
