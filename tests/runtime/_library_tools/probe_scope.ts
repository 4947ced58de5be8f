/**
 * A library tool's handler (test fixture, copied outside the checkout before use) that reports
 * what its sandbox lets it do, as JSON: read a file in the workspace, read the planted file
 * `args.outside` (relative to the workspace, outside it and the module's directory), connect to the loopback
 * port `args.port` with the global `fetch`, and use `context.fetch` on it. It also imports a
 * file beside it and an npm package of the tools' import map, as a real tool may.
 *
 * @module
 */
import { z } from "zod";
import { label } from "./probe_label.ts";

async function attempt(what: () => Promise<unknown>): Promise<string> {
  try {
    await what();
    return "ok";
  } catch (error) {
    return (error as Error).name;
  }
}

/** The handler: the default export of a library tool's module. */
export default async function probeScope(
  args: { outside: string; port: number },
  context: {
    workspace: string;
    fetch: (url: string) => Promise<Response>;
  },
): Promise<unknown> {
  const port = z.int().min(1).max(65535).parse(args.port);
  return {
    label: label(),
    readWorkspace: await attempt(() => Deno.readTextFile(`${context.workspace}/seen.txt`)),
    readOutside: await attempt(() => Deno.readTextFile(`${context.workspace}/${args.outside}`)),
    globalFetch: await attempt(() => fetch(`http://127.0.0.1:${port}/global`)),
    contextFetch: await attempt(() => context.fetch(`http://127.0.0.1:${port}/context`)),
    env: await attempt(() => Promise.resolve(Deno.env.get("HOME"))),
  };
}
