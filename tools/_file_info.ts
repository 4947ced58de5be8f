/**
 * The `file_info` tool (odek-go §4.1): what one workspace entry is, without following a final
 * symlink.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { dirname, relative, resolve } from "./_posix_path.ts";
import { openVerified } from "./_open_verified.ts";
import { isWithin, resolveEntryTarget } from "./_resolve_target.ts";
import { binaryReason, splitLines } from "./_text_file.ts";

/** Largest file whose lines `file_info` counts (10 MiB). */
export const MAX_COUNTED_FILE_BYTES = 10 * 1024 * 1024;

/**
 * Describe `path`: `type` (file, directory, symlink, other), `size` in bytes, `mode` (octal),
 * `modified` (ISO 8601, UTC), and for a text file up to 10 MiB its `lines`, for a binary one
 * `binary: <reason>`, for a directory its number of `entries`, for a symlink its `target` and
 * whether that lies inside the workspace (the link is never followed).
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns `key: value` lines
 * @throws {ToolFailure} outside the workspace (`denied`), missing (`failed`)
 *
 * @example
 * ```ts
 * import { fileInfo } from "./_file_info.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "x\ny\n");
 *   const out = await fileInfo({ path: "a.txt" }, context);
 *   if (!out.includes("type: file") || !out.includes("lines: 2")) throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function fileInfo(
  args: ToolArgs<"file_info">,
  context: ToolContext,
): Promise<string> {
  const { path } = args;
  const { workspace, roots } = context;
  const root = await Deno.realPath(workspace);
  const entry = await resolveEntryTarget(root, path, roots);
  const info = await Deno.lstat(entry);
  const type = info.isSymlink
    ? "symlink"
    : info.isDirectory
    ? "directory"
    : info.isFile
    ? "file"
    : "other";
  const lines = [
    `path: ${relative(root, entry) || "."}`,
    `type: ${type}`,
    `size: ${info.size} bytes`,
    `mode: ${(((info.mode ?? 0) & 0o7777).toString(8)).padStart(4, "0")}`,
    `modified: ${info.mtime?.toISOString() ?? "unknown"}`,
  ];
  if (info.isSymlink) {
    const target = await Deno.readLink(entry);
    const inside = isWithin(root, resolve(dirname(entry), target));
    lines.push(
      `target: ${target}`,
      inside
        ? "target inside the workspace: yes"
        : "target inside the workspace: no (not followed)",
    );
  } else if (info.isDirectory) {
    let count = 0;
    for await (const _ of Deno.readDir(entry)) count++;
    lines.push(`entries: ${count}`);
  } else if (info.isFile) {
    lines.push(await textDescription(entry, info.size));
  }
  return lines.join("\n");
}

async function textDescription(entry: string, size: number): Promise<string> {
  const { file } = await openVerified(entry, entry); // a link swapped in is refused
  const head = new Uint8Array(8192);
  let length = 0;
  try {
    for (let n: number | null = 0; n !== null && length < head.length;) {
      n = await file.read(head.subarray(length));
      length += n ?? 0;
    }
  } catch (error) {
    file.close();
    throw error;
  }
  const binary = binaryReason(head.subarray(0, length), length < head.length);
  if (binary !== null || size > MAX_COUNTED_FILE_BYTES) {
    file.close();
    return binary !== null ? `binary: ${binary}` : "lines: not counted (over 10 MiB)";
  }
  let count = 0;
  try {
    await file.seek(0, Deno.SeekMode.Start);
    await splitLines(file, () => void count++);
  } finally {
    file.close();
  }
  return `lines: ${count}`;
}
