/**
 * The `write_file` tool (odek-go §4.1): a whole file written atomically (temporary file in the
 * same directory, fsync, rename), parents created, an existing file's mode kept, new files 0644.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { atomicWrite, writeInPlace } from "./_atomic_write.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { resolveGrantedTarget, resolveWriteTarget } from "./_resolve_target.ts";

/** Largest content accepted, in bytes (1 MiB). */
export const MAX_WRITE_BYTES = 1024 * 1024;

/**
 * Write `content` to `path` in the workspace, replacing the file atomically. A symlink inside the
 * workspace is written through to its (in-workspace) target; one leading out is refused.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns a line saying what was written
 * @throws {ToolFailure} outside the workspace (`denied`), a directory (`failed`), content over
 *   1 MiB (`invalid_arguments`); Deno and OS denials propagate (the caller maps them to `denied`)
 *
 * @example Create a file
 * ```ts
 * import { writeFile } from "./_write_file.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await writeFile({ path: "notes/a.txt", content: "hi\n" }, context);
 *   if (await Deno.readTextFile(`${ws}/notes/a.txt`) !== "hi\n") throw new Error("not written");
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function writeFile(
  args: ToolArgs<"write_file">,
  context: ToolContext,
): Promise<string> {
  const { path, content } = args;
  const { workspace, roots } = context;
  const bytes = new TextEncoder().encode(content);
  if (bytes.length > MAX_WRITE_BYTES) {
    throw new ToolFailure(
      "invalid_arguments",
      `content is ${bytes.length} bytes, more than the 1 MiB write_file accepts: write the file in parts`,
    );
  }
  const grants = context.grants ?? [];
  // A file the approval granted alone is bound on its own: written in place, since nothing beside
  // it is writable (a placeholder odek created for a new one counts as new).
  const granted = await resolveGrantedTarget(workspace, path, grants);
  const target = granted ??
    (await resolveWriteTarget(workspace, path, roots, { grants, protect: context.protect ?? [] }));
  let mode = 0o644;
  let existed = false;
  try {
    const info = await Deno.stat(target);
    mode = (info.mode ?? 0o644) & 0o7777;
    existed = granted === null || info.size > 0;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (granted !== null) await writeInPlace(granted, bytes);
  else await atomicWrite(target, bytes, mode);
  const lines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  const counted = `${bytes.length} byte${bytes.length === 1 ? "" : "s"}, ${lines} line${
    lines === 1 ? "" : "s"
  }`;
  return `${existed ? "Replaced" : "Created"} ${path}: ${counted}`;
}
