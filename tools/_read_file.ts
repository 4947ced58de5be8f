/**
 * The `read_file` tool (odek-go §4.1): numbered `N|line` output, offset and limit, the total line
 * count, at most 1 MiB of output, binary files (a NUL byte, invalid UTF-8 or mostly control bytes
 * in the first 8 KiB) and directories refused.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { resolveReadTarget } from "./_resolve_target.ts";
import { openTextFile, splitLines } from "./_text_file.ts";

/** Most bytes of numbered lines one call returns (1 MiB). */
export const MAX_READ_BYTES = 1024 * 1024;

/**
 * Read a text file of the workspace as numbered lines, followed by a line saying which lines were
 * shown out of how many and where to read on.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns the numbered lines and a trailer
 * @throws {ToolFailure} outside the workspace (`denied`), missing, a directory, not a regular
 *   file, binary (`failed`), offset past the end (`invalid_arguments`)
 *
 * @example Read two lines
 * ```ts
 * import { readFile } from "./_read_file.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "one\ntwo\n");
 *   const out = await readFile({ path: "a.txt", offset: 1, limit: 500 }, context);
 *   if (!out.startsWith("1|one\n2|two\n")) throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function readFile(
  args: ToolArgs<"read_file">,
  context: ToolContext,
): Promise<string> {
  const { path, offset, limit } = args;
  const { workspace, roots } = context;
  const target = await resolveReadTarget(workspace, path, roots);
  using text = await openTextFile(target, path, "read_file");
  const encoder = new TextEncoder();
  const shown: string[] = [];
  let shownBytes = 0;
  let cutAfter = 0; // the last line shown when the 1 MiB cap cut the output
  let total = 0;
  const onLine = (raw: string) => {
    total += 1;
    if (total < offset || total >= offset + limit || cutAfter > 0) return;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    let entry = encoder.encode(`${total}|${line}\n`);
    if (shownBytes + entry.length > MAX_READ_BYTES) {
      if (shown.length > 0) {
        cutAfter = total - 1;
      } else {
        cutAfter = total;
        entry = entry.subarray(0, MAX_READ_BYTES - 64);
        shown.push(
          `${new TextDecoder().decode(entry)} … [line cut at 1 MiB]\n`,
        );
      }
      return;
    }
    shownBytes += entry.length;
    shown.push(`${total}|${line}\n`);
  };
  await splitLines(text.file, onLine);
  if (total === 0) return `(${path} is empty: 0 lines)`;
  if (offset > total) {
    throw new ToolFailure(
      "invalid_arguments",
      `offset ${offset} is past the end of ${path}, which has ${total} lines`,
    );
  }
  const last = cutAfter > 0 ? cutAfter : Math.min(total, offset + limit - 1);
  const cut = cutAfter > 0 ? "; output cut at 1 MiB" : "";
  const more = last < total ? `; read on with offset=${last + 1}` : "";
  return `${shown.join("")}[lines ${offset}-${last} of ${total} in ${path}${cut}${more}]`;
}
