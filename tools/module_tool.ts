/**
 * The module-tool child: serves one library tool (`defineTool` in `src/runtime/define_tool.ts`),
 * whose handler is the default export of a module outside odek. The core runs it like every tool
 * child — inside bwrap, with the scope the call's verdict grants (`--allow-read` on the workspace
 * and the module's directory, `--allow-write` on the workspace only when a write was granted,
 * network only through the egress proxy), one child per scope — and passes the module as
 * `--module=<path>` and the tool's name as `--tool=<name>` (see `ModuleToolCommand` in
 * `src/broker/_module_dir.ts`). The module is imported on the first call, never by the core.
 *
 * @module
 */
import { z } from "zod";
import { ToolChildServer, type ToolHandler } from "./_catalogue/child_server.ts";
import { stdioTransport } from "./_catalogue/stdio_transport.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { EgressClient } from "./_web_fetch.ts";

/** What {@linkcode moduleToolServer} serves. */
export interface ModuleToolServerOptions {
  /** The tool's name. */
  tool: string;
  /** Loads the handler (the child imports `--module`'s default export). */
  load: () => Promise<unknown>;
  /** The child's way out (the egress proxy), or none. */
  egress: EgressClient;
}

/**
 * The server of one library tool. The core validated the call against the tool's own schema
 * before sending it; here the arguments need only be a JSON object. The handler gets the
 * workspace, the added directories, the call's abort signal and `fetch` (through the egress
 * proxy; without network it refuses). A string result is the model's text; anything else is sent
 * as JSON.
 *
 * @param options the tool's name, its loader and the egress client
 * @returns the server
 *
 * @example Serve a handler over one line
 * ```ts
 * import { moduleToolServer } from "./module_tool.ts";
 * import { EgressClient } from "./_web_fetch.ts";
 * const server = moduleToolServer({
 *   tool: "shout",
 *   load: () => Promise.resolve((args: { text: string }) => args.text.toUpperCase()),
 *   egress: new EgressClient(undefined),
 * });
 * const answer = await server.answer(
 *   '{"type":"call","id":1,"tool":"shout","args":{"text":"hi"},"workspace":"/"}',
 * );
 * if (answer?.type !== "result" || !answer.ok || answer.output !== "HI") throw new Error("no");
 * ```
 */
export function moduleToolServer(options: ModuleToolServerOptions): ToolChildServer {
  const { tool, egress } = options;
  const fetchThrough = (input: string | URL | Request, init?: RequestInit) =>
    egress.fetch(input, init);
  return new ToolChildServer({
    name: `library tool ${tool}`,
    entries: [{ name: tool, args: z.record(z.string(), z.unknown()) }],
    services: { fetch: fetchThrough },
    load: async () => {
      const handler = await options.load();
      if (typeof handler !== "function") {
        throw new ToolFailure(
          "failed",
          `The module of ${tool} has no default export function (its handler): export default a function (args, context) => string`,
        );
      }
      const run: ToolHandler = async (args, context) => asText(await handler(args, context));
      return run;
    },
  });
}

function asText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  const text = JSON.stringify(value, null, 2);
  if (text === undefined) {
    throw new ToolFailure("failed", `The handler returned a ${typeof value}, not text or JSON`);
  }
  return text;
}

/** The `file:` URL of an absolute path. */
function fileUrl(path: string): string {
  return `file://${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The value of `--name=<value>` among the arguments. */
function flag(name: string): string | undefined {
  const prefix = `--${name}=`;
  return Deno.args.find((arg) => arg.startsWith(prefix))?.slice(prefix.length);
}

if (import.meta.main) {
  const module = flag("module");
  const tool = flag("tool");
  if (module === undefined || tool === undefined) {
    console.error("odek module-tool child: --module=<path> and --tool=<name> are required");
    Deno.exit(2);
  }
  const egress = new EgressClient(flag("egress-socket"));
  try {
    await moduleToolServer({
      tool,
      egress,
      load: async () => {
        try {
          return (await import(fileUrl(module))).default;
        } catch (error) {
          throw new ToolFailure(
            "failed",
            `Cannot import the module of ${tool} (${module}): ${
              (error as Error).message
            }. It may import files in its own directory and npm: packages already in the Deno cache, never remote code or odek itself at run time (import type only)`,
          );
        }
      },
    }).serve(stdioTransport(Deno.stdin, Deno.stdout));
  } finally {
    egress.close();
  }
}
