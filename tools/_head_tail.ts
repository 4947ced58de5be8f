/**
 * The `head_tail` tool (odek-go §4.1): the first or last N lines of a workspace text file,
 * streamed (the whole file is never held), numbered like `read_file`.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { resolveReadTarget } from "./_resolve_target.ts";
import { openTextFile, splitLines } from "./_text_file.ts";

/** Most bytes of lines one call returns (1 MiB). */
export const MAX_HEAD_TAIL_BYTES = 1024 * 1024;

/**
 * The first (`from: "head"`) or last (`from: "tail"`) `lines` lines of a text file as `N|text`,
 * then a line saying which lines of how many were shown (a tail reads the whole file to count).
 * At most 1 MiB of lines: a tail keeps the last lines that fit, a head the first.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns numbered lines and a trailer
 * @throws {ToolFailure} outside the workspace (`denied`), missing, a directory or binary
 *   (`failed`)
 *
 * @example The last line
 * ```ts
 * import { headTail } from "./_head_tail.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "one\ntwo\nthree\n");
 *   const out = await headTail({ path: "a.txt", from: "tail", lines: 1 }, context);
 *   if (out !== "3|three\n[last 1 of 3 lines of a.txt]") throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function headTail(
  args: ToolArgs<"head_tail">,
  context: ToolContext,
): Promise<string> {
  const { path, from, lines } = args;
  const { workspace, roots } = context;
  const target = await resolveReadTarget(workspace, path, roots);
  using text = await openTextFile(target, path, "head_tail");
  const encoder = new TextEncoder();
  const kept: { n: number; entry: string; bytes: number }[] = [];
  let keptBytes = 0;
  let total = 0;
  let cut = false;
  let more = false;
  await splitLines(text.file, (raw) => {
    total++;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const entry = `${total}|${line}`;
    const bytes = encoder.encode(entry).length + 1;
    if (from === "head") {
      if (kept.length >= lines || keptBytes + bytes > MAX_HEAD_TAIL_BYTES) {
        cut = kept.length < lines;
        more = true;
        return false;
      }
      kept.push({ n: total, entry, bytes });
      keptBytes += bytes;
      return true;
    }
    kept.push({ n: total, entry, bytes });
    keptBytes += bytes;
    while (
      kept.length > lines ||
      (keptBytes > MAX_HEAD_TAIL_BYTES && kept.length > 0)
    ) {
      const dropped = kept.shift()!;
      keptBytes -= dropped.bytes;
      if (kept.length < lines) cut = true;
    }
    return true;
  });
  if (kept.length === 0 && total === 0) return `(${path} is empty: 0 lines)`;
  const body = kept.map((k) => k.entry).join("\n");
  const capped = cut ? "; cut at 1 MiB" : "";
  if (from === "head") {
    const next = (kept.at(-1)?.n ?? 0) + 1;
    return more
      ? `${body}\n[first ${kept.length} lines of ${path}${capped}; read on with read_file offset=${next}]`
      : `${body}\n[all ${kept.length} lines of ${path}]`;
  }
  return `${body}\n[last ${kept.length} of ${total} lines of ${path}${capped}]`;
}
