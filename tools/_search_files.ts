/**
 * The `search_files` tool (odek-go §4.1): a regular expression over the contents of workspace
 * files, `path:line:text` per matching line, walking like `tree` (`.gitignore` respected,
 * dependency and build directories skipped, symlinks never followed).
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { relative } from "./_posix_path.ts";
import picomatch from "picomatch";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { openVerified } from "./_open_verified.ts";
import { resolveReadTarget } from "./_resolve_target.ts";
import { binaryReason, splitLines } from "./_text_file.ts";
import { walkWorkspace } from "./_walk.ts";

/** Largest output, in bytes (256 KiB). */
export const MAX_SEARCH_OUTPUT_BYTES = 256 * 1024;
/** Files larger than this are not searched (10 MiB). */
export const MAX_SEARCHED_FILE_BYTES = 10 * 1024 * 1024;
/** Characters of a matching line shown at most. */
export const MAX_SHOWN_LINE_CHARS = 300;

/**
 * Search the text files under `path` (or the one file `path` names) for lines matching the
 * JavaScript regular expression `pattern`. Files whose path relative to `path` does not match the
 * `include` glob, binary files (see `binaryReason`) and files over 10 MiB are passed over. Lines
 * come sorted by path, then line number; at most `max_results` lines and 256 KiB, with a note
 * saying when the search stopped early.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns `path:line:text` lines and, when cut, a note; or a line saying nothing matched
 * @throws {ToolFailure} an invalid regular expression (`invalid_arguments`), a path outside the
 *   workspace (`denied`) or missing (`failed`)
 *
 * @example
 * ```ts
 * import { searchFiles } from "./_search_files.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.writeTextFile(`${ws}/a.ts`, "let x = 1;\nconst TODO = 2;\n");
 *   const out = await searchFiles({ pattern: "TODO", path: ".", ignore_case: false, max_results: 100 }, context);
 *   if (out !== "a.ts:2:const TODO = 2;") throw new Error(out);
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function searchFiles(
  args: ToolArgs<"search_files">,
  context: ToolContext,
): Promise<string> {
  const { pattern, path, include, ignore_case, max_results } = args;
  const { workspace, roots, signal } = context;
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, ignore_case ? "i" : "");
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `pattern is not a valid JavaScript regular expression: ${(error as Error).message}`,
    );
  }
  const root = await Deno.realPath(workspace);
  const base = await resolveReadTarget(root, path, roots);
  const matchesInclude = include === undefined ? () => true : picomatch(include, { dot: true });
  const files: { path: string; real: string }[] = [];
  if ((await Deno.stat(base)).isDirectory) {
    for await (const entry of walkWorkspace(root, base, { signal })) {
      if (entry.kind !== "file") continue;
      if (matchesInclude(relative(base, entry.real))) files.push(entry);
    }
  } else {
    files.push({ path: relative(root, base), real: base });
  }
  const out: string[] = [];
  let bytes = 0;
  let stop: string | null = null;
  let searched = 0;
  for (const file of files) {
    if (stop !== null) break;
    signal.throwIfAborted();
    const found = await searchOne(
      file.real,
      regex,
      max_results - out.length + 1,
    );
    if (found === null) continue;
    searched++;
    for (const [line, text] of found) {
      const shown = text.length > MAX_SHOWN_LINE_CHARS
        ? `${text.slice(0, MAX_SHOWN_LINE_CHARS)}… [line cut]`
        : text;
      const entry = `${file.path}:${line}:${shown}`;
      bytes += new TextEncoder().encode(entry).length + 1;
      if (out.length >= max_results || bytes > MAX_SEARCH_OUTPUT_BYTES) {
        stop = out.length >= max_results
          ? `stopped at max_results=${max_results}`
          : "stopped at 256 KiB of output";
        break;
      }
      out.push(entry);
    }
  }
  if (out.length === 0) {
    return `(no line matches ${pattern} in ${searched} text file${
      searched === 1 ? "" : "s"
    } under ${path})`;
  }
  return stop === null
    ? out.join("\n")
    : `${out.join("\n")}\n[${stop}: narrow the pattern, path or include]`;
}

/** Up to `limit` matching lines of one file as [line number, text], or `null` if not searched. */
async function searchOne(
  real: string,
  regex: RegExp,
  limit: number,
): Promise<[number, string][] | null> {
  let file: Deno.FsFile;
  try {
    const info = await Deno.stat(real);
    if (!info.isFile || info.size > MAX_SEARCHED_FILE_BYTES) return null;
    file = (await openVerified(real, real)).file; // a link swapped in is skipped, never read
  } catch {
    return null;
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  const head = new Uint8Array(8192);
  try {
    for (let n: number | null = 0; n !== null && length < head.length;) {
      n = await file.read(head.subarray(length));
      length += n ?? 0;
    }
  } catch {
    file.close();
    return null;
  }
  if (binaryReason(head.subarray(0, length), length < head.length) !== null) {
    file.close();
    return null;
  }
  chunks.push(head.subarray(0, length));
  const found: [number, string][] = [];
  let line = 0;
  const onLine = (raw: string) => {
    line++;
    const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (regex.test(text)) found.push([line, text]);
    return found.length < limit;
  };
  const rest = file.readable;
  const stream = ReadableStream.from((async function* () {
    yield* chunks;
    yield* rest;
  })());
  await splitLines(stream, onLine);
  return found;
}
