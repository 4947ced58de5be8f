/**
 * The `head_tail` tool (odek-go §4.1): the first or last N lines of a workspace text file,
 * streamed (the whole file is never held), numbered like `read_file`.
 *
 * @module
 */
import { z } from "zod";
import { resolveReadTarget } from "./_resolve_target.ts";
import { openTextFile, splitLines } from "./_text_file.ts";

/** Most bytes of lines one call returns (1 MiB). */
export const MAX_HEAD_TAIL_BYTES = 1024 * 1024;

/** Arguments of `head_tail`: `lines` 1–2000 (default 20), `from` `head` (default) or `tail`. */
export const HeadTailArgsSchema = z.strictObject({
  path: z.string().min(1),
  from: z.enum(["head", "tail"]).default("head"),
  lines: z.int().min(1).max(2000).default(20),
});

/**
 * The first (`from: "head"`) or last (`from: "tail"`) `lines` lines of a text file as `N|text`,
 * then a line saying which lines of how many were shown (a tail reads the whole file to count).
 * At most 1 MiB of lines: a tail keeps the last lines that fit, a head the first.
 *
 * @param workspace the realpathed workspace
 * @param args `{ path, from?, lines? }` (validated here)
 * @returns numbered lines and a trailer
 * @throws {ToolFailure} outside the workspace (`denied`), missing, a directory or binary
 *   (`failed`)
 *
 * @example The last line
 * ```ts
 * import { headTail } from "./_head_tail.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "one\ntwo\nthree\n");
 *   const out = await headTail(ws, { path: "a.txt", from: "tail", lines: 1 });
 *   if (out !== "3|three\n[last 1 of 3 lines of a.txt]") throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function headTail(
  workspace: string,
  args: Record<string, unknown>,
  roots: readonly string[] = [],
): Promise<string> {
  const { path, from, lines } = HeadTailArgsSchema.parse(args);
  const target = await resolveReadTarget(workspace, path, roots);
  using text = await openTextFile(target, path, "head_tail");
  const encoder = new TextEncoder();
  const kept: { n: number; entry: string; bytes: number }[] = [];
  let keptBytes = 0;
  let total = 0;
  let cut = false;
  let more = false;
  await splitLines(text.file.readable, (raw) => {
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
