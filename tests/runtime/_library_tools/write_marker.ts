/**
 * A library tool's handler (test fixture, copied outside the checkout before use): appends a
 * line to the marker file `args.name` in the workspace, then reads it back. It imports odek's
 * types only: erased at run time, so the import resolves nowhere once the file is copied.
 *
 * @module
 */
import type { ToolModuleContext, ToolModuleHandler } from "../../../src/mod.ts";

/** The handler: the default export of a library tool's module. */
const writeMarker: ToolModuleHandler<{ name: string; line: string }> = async (
  args,
  context: ToolModuleContext,
) => {
  const path = `${context.workspace}/${args.name}`;
  await Deno.writeTextFile(path, `${args.line}\n`, { append: true });
  return `wrote ${args.name}: ${(await Deno.readTextFile(path)).trim()}`;
};
export default writeMarker;
