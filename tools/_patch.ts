/**
 * The `patch` tool: edit one workspace file either by replacing an exact string that must occur
 * exactly once, or by applying a unified diff (parsed and applied with the npm `diff` package)
 * whose every hunk must match exactly one place. Anything else is refused with the reason, and
 * the file is written atomically like `write_file`. Unlike odek-go §4.1 (which replaced the first
 * of several matches), uniqueness is enforced.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { applyPatch, createTwoFilesPatch, parsePatch, type StructuredPatch } from "diff";
import { atomicWrite, writeInPlace } from "./_atomic_write.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { refuseProtected, resolveGrantedTarget, resolveReadTarget } from "./_resolve_target.ts";
import { openTextFile } from "./_text_file.ts";

/** Largest file `patch` edits, before and after, in bytes (10 MiB, odek-go §4.1). */
export const MAX_PATCH_FILE_BYTES = 10 * 1024 * 1024;
/** Diff lines shown in the result at most. */
export const MAX_SHOWN_DIFF_LINES = 200;

/**
 * Edit `path` in the workspace and describe the change as a unified diff.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns `Patched <path>: …` and the diff of the change (at most 200 lines shown)
 * @throws {ToolFailure} outside the workspace (`denied`); missing, binary, over 10 MiB, no
 *   match, several matches, a stale or ambiguous hunk, no change (`failed`); an unparseable diff
 *   or one naming several files (`invalid_arguments`). A read-only scope fails the write with a
 *   Deno or OS denial, which the caller reports as `denied`; the file is unchanged.
 *
 * @example Replace a unique string
 * ```ts
 * import { patch } from "./_patch.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "one\ntwo\n");
 *   await patch({ path: "a.txt", old_string: "two", new_string: "2" }, context);
 *   if (await Deno.readTextFile(`${ws}/a.txt`) !== "one\n2\n") throw new Error("not patched");
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function patch(
  args: ToolArgs<"patch">,
  context: ToolContext,
): Promise<string> {
  const parsed = args;
  const { workspace, roots } = context;
  const { path } = parsed;
  const grants = context.grants ?? [];
  const granted = await resolveGrantedTarget(workspace, path, grants);
  const target = granted ?? (await resolveReadTarget(workspace, path, roots));
  if (granted === null) {
    refuseProtected(await Deno.realPath(workspace), target, path, {
      grants,
      protect: context.protect ?? [],
    });
  }
  let before: string;
  {
    using text = await openTextFile(target, path, "patch");
    if (text.size > MAX_PATCH_FILE_BYTES) {
      throw new ToolFailure(
        "failed",
        `${path} is ${text.size} bytes, more than the 10 MiB patch edits: use the shell (sed, a script) for it`,
      );
    }
    before = new TextDecoder().decode(await readAll(text.file));
  }
  const mode = ((await Deno.stat(target)).mode ?? 0o644) & 0o7777;
  const after = parsed.diff !== undefined
    ? applyDiff(path, before, parsed.diff)
    : replaceOnce(path, before, parsed.old_string!, parsed.new_string!);
  if (after === before) {
    throw new ToolFailure(
      "failed",
      `The patch leaves ${path} unchanged: nothing was written`,
    );
  }
  const bytes = new TextEncoder().encode(after);
  if (bytes.length > MAX_PATCH_FILE_BYTES) {
    throw new ToolFailure(
      "failed",
      `The patched ${path} would be over 10 MiB: nothing was written`,
    );
  }
  if (granted !== null) await writeInPlace(granted, bytes);
  else await atomicWrite(target, bytes, mode);
  return `Patched ${path}:\n${shownDiff(path, before, after)}`;
}

function replaceOnce(
  path: string,
  text: string,
  old: string,
  replacement: string,
): string {
  if (old === replacement) {
    throw new ToolFailure(
      "invalid_arguments",
      "old_string and new_string are the same",
    );
  }
  const at: number[] = [];
  for (let i = text.indexOf(old); i !== -1; i = text.indexOf(old, i + 1)) {
    at.push(i);
  }
  if (at.length === 1) {
    return text.slice(0, at[0]) + replacement + text.slice(at[0] + old.length);
  }
  if (at.length === 0) {
    const crlf = text.includes("\r\n") && old.includes("\n") && !old.includes("\r\n")
      ? " (the file has CRLF line endings)"
      : "";
    throw new ToolFailure(
      "failed",
      `old_string occurs 0 times in ${path}${crlf}: read the file again and copy the text exactly, with its whitespace and indentation`,
    );
  }
  const lines = at.map((i) => lineOf(text, i));
  throw new ToolFailure(
    "failed",
    `old_string occurs ${at.length} times in ${path}, at lines ${listed(lines)}: ` +
      `include more surrounding text so that it matches exactly once`,
  );
}

function applyDiff(path: string, text: string, diff: string): string {
  let patches: StructuredPatch[];
  try {
    patches = parsePatch(diff).filter((p) => p.hunks.length > 0);
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `The diff cannot be parsed: ${
        (error as Error).message
      }. Check each @@ -a,b +c,d @@ line's counts against its lines, or use old_string/new_string`,
    );
  }
  if (patches.length === 0) {
    throw new ToolFailure(
      "invalid_arguments",
      "The diff holds no hunk (no @@ -a,b +c,d @@ line)",
    );
  }
  if (patches.length > 1) {
    throw new ToolFailure(
      "invalid_arguments",
      `The diff names ${patches.length} files: patch edits one file per call (${path})`,
    );
  }
  const lines = splitForMatch(text);
  patches[0].hunks.forEach((hunk, index) => {
    const old = hunk.lines.filter((l) => l[0] === " " || l[0] === "-").map((
      l,
    ) => trimCr(l.slice(1)));
    if (old.length === 0) return; // a pure insertion goes where its header says
    const at = occurrences(lines, old);
    const name = `hunk ${
      index + 1
    } (@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@)`;
    if (at.length > 1) {
      throw new ToolFailure(
        "failed",
        `${name} is ambiguous: its context and removed lines match ${path} at lines ${
          listed(at)
        }. Add context lines so that it matches one place`,
      );
    }
    if (at.length === 0) {
      const missing = old.find((line) => !lines.includes(line));
      const why = missing === undefined
        ? "its lines exist but not in this order"
        : `the line ${JSON.stringify(missing.slice(0, 120))} is not in the file`;
      throw new ToolFailure(
        "failed",
        `${name} is stale: it does not match ${path} (${why}). Read the file again and rebuild the hunk, or use old_string/new_string`,
      );
    }
  });
  const result = applyPatch(text, patches[0], { fuzzFactor: 0 });
  if (result === false) {
    throw new ToolFailure(
      "failed",
      `The diff does not apply to ${path}: its hunks overlap or are out of order. Send one hunk per call`,
    );
  }
  return result;
}

function splitForMatch(text: string): string[] {
  const lines = text.split("\n").map(trimCr);
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function trimCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

/** 1-based line numbers where `needle` starts as a run of whole lines of `lines`. */
function occurrences(lines: string[], needle: string[]): number[] {
  const found: number[] = [];
  for (let i = 0; i + needle.length <= lines.length; i++) {
    let j = 0;
    while (j < needle.length && lines[i + j] === needle[j]) j++;
    if (j === needle.length) found.push(i + 1);
  }
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (
    let i = text.indexOf("\n");
    i !== -1 && i < index;
    i = text.indexOf("\n", i + 1)
  ) line++;
  return line;
}

function listed(numbers: number[]): string {
  const shown = numbers.slice(0, 10).join(", ");
  return numbers.length > 10 ? `${shown} and ${numbers.length - 10} more` : shown;
}

function shownDiff(path: string, before: string, after: string): string {
  const lines = createTwoFilesPatch(path, path, before, after, "", "", {
    context: 3,
  }).split("\n");
  lines.splice(
    0,
    Math.max(0, lines.findIndex((line) => line.startsWith("--- "))),
  );
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length <= MAX_SHOWN_DIFF_LINES) return lines.join("\n");
  const rest = lines.length - MAX_SHOWN_DIFF_LINES;
  return `${lines.slice(0, MAX_SHOWN_DIFF_LINES).join("\n")}\n… ${rest} more diff lines not shown`;
}

async function readAll(file: Deno.FsFile): Promise<Uint8Array> {
  return new Uint8Array(await new Response(file.readable).arrayBuffer());
}
