/**
 * `defineTool()`: a library user's own tool, run like a built-in one — classified by the access
 * it declares, approved by the host's approver, and executed in a sandboxed tool child of its own,
 * never in the caller's process.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { ArgsSchema, RiskClass } from "../../tools/_catalogue/mod.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { ToolProvider } from "../loop/tool_provider.ts";
import type { ToolProviderFactory, ToolProviderHost } from "./tool_provider_source.ts";

/**
 * What a library tool may touch; every call of it is classified by this, whatever its arguments
 * (design §3: a `read` or `local_write` part, and a `network` part when `network` is set).
 *
 * @example A tool that writes the workspace and fetches
 * ```ts
 * import type { ToolAccess } from "./define_tool.ts";
 * const access: ToolAccess = { workspace: "write", network: true };
 * if (access.workspace !== "write") throw new Error("access");
 * ```
 */
export interface ToolAccess {
  /**
   * `read`: the workspace (and the added directories) readable, nothing writable; `write`: the
   * workspace writable too (`local_write`, which runs without asking at the standard trust level
   * and is refused in an untrusted run).
   */
  readonly workspace: "read" | "write";
  /**
   * Reach the network through odek's egress proxy, with `context.fetch` (a `network` part: it asks
   * the operator at the standard trust level). @default no network
   */
  readonly network?: true;
}

/**
 * Options for {@linkcode defineTool}.
 *
 * @example A read-only tool with a zod schema
 * ```ts
 * import { z } from "zod";
 * import type { DefineToolOptions } from "./define_tool.ts";
 * const options: DefineToolOptions<{ path: string }> = {
 *   name: "line_count",
 *   description: "Count the lines of a file in the workspace.",
 *   args: z.strictObject({ path: z.string() }),
 *   access: { workspace: "read" },
 *   module: new URL("./line_count_tool.ts", import.meta.url),
 *   timeoutMs: 30_000,
 * };
 * if (options.access.workspace !== "read") throw new Error("access");
 * ```
 */
export interface DefineToolOptions<A extends Record<string, unknown> = Record<string, unknown>> {
  /** The name the model calls: 1–64 letters, digits, `_` or `-`, unlike every other tool's. */
  readonly name: string;
  /** What the model is told about the tool. */
  readonly description: string;
  /**
   * The arguments' schema, checked in the caller's process before anything runs: a zod 4 schema,
   * or any {@linkcode ArgsSchema} (Standard Schema with JSON Schema). Its output must be JSON.
   */
  readonly args: ArgsSchema<A>;
  /** What the tool may touch (its calls' class and scope). */
  readonly access: ToolAccess;
  /**
   * The handler module, a local file: `new URL("./my_tool.ts", import.meta.url)` (a `file:` URL,
   * or an absolute path). Its default export is the {@linkcode ToolModuleHandler}. Its directory
   * is bound read-only in the tool's sandbox, so it may import files there and `npm:` packages
   * already in the Deno cache; nothing remote, and nothing of odek at run time (`import type`
   * only).
   */
  readonly module: URL | string;
  /** A call not answered within this many milliseconds is cancelled. @default 120_000 */
  readonly timeoutMs?: number;
}

/**
 * What a library tool's handler gets besides its arguments.
 *
 * @example What a handler can use
 * ```ts
 * import type { ToolModuleContext } from "./define_tool.ts";
 * const context: ToolModuleContext = {
 *   workspace: "/srv/project",
 *   roots: [],
 *   signal: new AbortController().signal,
 *   fetch: () => Promise.reject(new Error("no network was granted")),
 * };
 * if (context.signal.aborted) throw new Error("not aborted");
 * ```
 */
export interface ToolModuleContext {
  /** The workspace (a real path): the tool child's working directory. */
  readonly workspace: string;
  /** The directories granted besides the workspace (`addDirs`), as real paths. */
  readonly roots: readonly string[];
  /** Aborts when the call is cancelled (the run was interrupted, or the call timed out). */
  readonly signal: AbortSignal;
  /**
   * `fetch` through odek's egress proxy, which refuses addresses that are not globally reachable;
   * without `access.network` it refuses every request.
   */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}

/**
 * A library tool's handler: the default export of its module. It gets the validated arguments
 * and returns the model's text (anything else is sent as JSON). What it throws fails the call as
 * data: the model reads the message; a permission the scope lacks (`Deno.errors.NotCapable`) is
 * `denied`.
 *
 * @example The default export of a tool module
 * ```ts
 * import type { ToolModuleHandler } from "./define_tool.ts";
 * // In line_count_tool.ts: `export default lineCount;` (and `import type` from odek only).
 * const lineCount: ToolModuleHandler<{ text: string }> = (args) => String(args.text.split("\n").length);
 * const context = { workspace: "/", roots: [], signal: new AbortController().signal, fetch };
 * if (lineCount({ text: "a\nb" }, context) !== "2") throw new Error("count");
 * ```
 */
export type ToolModuleHandler<A = Record<string, unknown>> = (
  args: A,
  context: ToolModuleContext,
) => unknown;

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Define a tool of your own: a provider factory for `createRuntime({ tools })` or
 * `openSession(target, { tools })`. Each session host runs its calls through the host's broker in
 * a tool child of its own (`tools/module_tool.ts` importing `module`), under the scope the call's
 * verdict grants, exactly as for a built-in tool: inside bwrap, the workspace read-only for
 * `access.workspace: "read"` and writable for `"write"`, network only through the egress proxy
 * when approved. The module is never imported in the caller's process.
 *
 * @param options the tool's name, description, argument schema, access and module
 * @returns a factory of the tool's provider, one per session host
 * @throws {TypeError} for a bad option, naming it (a `module` that is not a `file:` URL or an
 *   absolute path included); the factory throws {@linkcode OdekError} `CONFIG_INVALID` when the
 *   module does not exist
 *
 * @example Define a word-count tool
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./define_tool.ts";
 * const wordCount = defineTool({
 *   name: "word_count",
 *   description: "Count the words of a file in the workspace.",
 *   args: z.strictObject({ path: z.string() }),
 *   access: { workspace: "read" },
 *   module: new URL("./word_count_tool.ts", import.meta.url),
 * });
 * if (typeof wordCount !== "function") throw new Error("a provider factory");
 * ```
 */
export function defineTool<A extends Record<string, unknown>>(
  options: DefineToolOptions<A>,
): ToolProviderFactory {
  const { name, description, args, access, timeoutMs } = checkDefineTool(options);
  const module = modulePath(options.module);
  const classWithoutGate: RiskClass = access.network
    ? "network"
    : access.workspace === "write"
    ? "local_write"
    : "read";
  const rule = {
    kind: "access",
    workspace: access.workspace,
    ...(access.network ? { network: true } : {}),
  } as const;
  return async (host: ToolProviderHost): Promise<ToolProvider> => {
    try {
      await Deno.stat(module);
    } catch (error) {
      throw new OdekError(
        "CONFIG_INVALID",
        `The module of the tool ${name}, ${module}, cannot be opened (${
          (error as Error).message
        }): check the path given to defineTool()`,
        { cause: error },
      );
    }
    const tool = { module, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    return {
      name: `the library tool ${name}`,
      list: () => [{ name, description, args: args as ArgsSchema, classWithoutGate }],
      classify: () => rule,
      run: async (invocation, signal) => {
        const broker = host.broker;
        if (broker.runModuleTool === undefined) {
          const message = `${name} cannot run: this session's broker does not run library tools`;
          return { ok: false, error: { kind: "sandbox_unavailable", message } };
        }
        return await broker.runModuleTool(invocation, tool, signal);
      },
    };
  };
}

function checkDefineTool<A extends Record<string, unknown>>(
  options: DefineToolOptions<A>,
): DefineToolOptions<A> {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("defineTool() takes an options object");
  }
  const { name, description, args, access, timeoutMs } = options;
  if (typeof name !== "string" || !TOOL_NAME.test(name)) {
    throw new TypeError(`name must be 1-64 letters, digits, _ or -, got ${JSON.stringify(name)}`);
  }
  if (typeof description !== "string" || description.trim() === "") {
    throw new TypeError(`description of ${name} must be a non-empty string`);
  }
  const standard = (args as Partial<ArgsSchema> | undefined)?.["~standard"];
  if (
    typeof standard?.validate !== "function" || typeof standard.jsonSchema?.input !== "function"
  ) {
    throw new TypeError(
      `args of ${name} must be a Standard Schema with JSON Schema (~standard.validate and ~standard.jsonSchema.input), such as a zod 4 schema`,
    );
  }
  const workspace = (access as Partial<ToolAccess> | undefined)?.workspace;
  if (workspace !== "read" && workspace !== "write") {
    throw new TypeError(`access.workspace of ${name} must be "read" or "write"`);
  }
  if (access.network !== undefined && access.network !== true) {
    throw new TypeError(`access.network of ${name} must be true or absent`);
  }
  if (
    timeoutMs !== undefined &&
    (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2 ** 31 - 1)
  ) {
    throw new TypeError(`timeoutMs of ${name} must be an integer from 1 to 2147483647`);
  }
  return options;
}

/** The module option as an absolute path. */
function modulePath(module: URL | string): string {
  const text = module instanceof URL ? module.href : module;
  if (typeof text !== "string") throw new TypeError("module must be a file: URL or a path");
  if (text.startsWith("/")) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`module must be a file: URL or an absolute path, got ${text}`);
  }
  if (url.protocol !== "file:") {
    throw new TypeError(
      `module must be a local file (a file: URL or an absolute path), got ${url.href}: the tool child imports it from disk`,
    );
  }
  return fileURLToPath(url);
}
