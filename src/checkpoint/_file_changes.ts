/**
 * How two sets of recorded paths differ: per path added, modified or deleted, with line counts
 * (and a unified diff when asked) made with the npm `diff` package (jsdiff).
 *
 * @module
 */
import { structuredPatch } from "diff";
import type { DiffOptions, FileChange } from "./checkpoint_store.ts";
import type { TreeFile } from "./_tree_files.ts";

/** Largest file whose lines are counted and diffed, in bytes. */
const MAX_TEXT_BYTES = 1024 * 1024;

/** Longest time one file's diff may take, in milliseconds (then its lines are counted whole). */
const DIFF_TIMEOUT_MS = 500;

/**
 * The changes from `a` to `b`, sorted by path. Modes matter (a file that became executable is
 * modified); `read` returns a blob's bytes.
 */
export function compareFiles(
  a: ReadonlyMap<string, TreeFile>,
  b: ReadonlyMap<string, TreeFile>,
  read: (oid: string) => Uint8Array,
  options: DiffOptions = {},
): FileChange[] {
  const changes: FileChange[] = [];
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  for (const path of paths) {
    const from = a.get(path);
    const to = b.get(path);
    if (from && to && from.oid === to.oid && from.mode === to.mode) continue;
    const change = !from ? "added" : !to ? "deleted" : "modified";
    changes.push(
      describe(path, change, from && text(read(from.oid)), to && text(read(to.oid)), options),
    );
  }
  return changes;
}

/** The file as text, or `null` when it is binary or too large to diff. */
function text(bytes: Uint8Array): string | null {
  if (bytes.length > MAX_TEXT_BYTES || bytes.subarray(0, 8192).includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function describe(
  path: string,
  change: FileChange["change"],
  before: string | null | undefined,
  after: string | null | undefined,
  options: DiffOptions,
): FileChange {
  if (before === null || after === null) {
    return { path, change, added: 0, removed: 0, binary: true };
  }
  const old = before ?? "";
  const now = after ?? "";
  const patch = structuredPatch(path, path, old, now, undefined, undefined, {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (patch === undefined) {
    // Too slow to diff line by line: everything old is counted as removed, everything new as added.
    return { path, change, added: lineCount(now), removed: lineCount(old), binary: false };
  }
  let added = 0;
  let removed = 0;
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
      lines.push(line);
    }
  }
  const result: FileChange = { path, change, added, removed, binary: false };
  if (options.withDiff) result.diff = capLines(lines, options.maxDiffLines ?? 40);
  return result;
}

function capLines(lines: string[], max: number): string {
  if (lines.length <= max) return lines.join("\n");
  return `${lines.slice(0, max).join("\n")}\n… ${lines.length - max} more lines`;
}

function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
