/**
 * The `diff` tool: a unified diff of two texts given inline, made with the npm `diff` package
 * (jsdiff). It runs in the compute child and reads no files (compare files with `shell`'s
 * `diff -u`, or read them first).
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { createTwoFilesPatch } from "diff";
import { capOutput } from "./_compute_limits.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/** Longest time spent diffing, in milliseconds. */
export const DIFF_TIMEOUT_MS = 5_000;

/**
 * The unified diff (`---`/`+++` headers, `@@` hunks) that turns `old` into `new`, line by line,
 * with `context` unchanged lines around each change.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param _context unused (the compute child reaches no files)
 * @returns the diff, or a line saying the texts are equal
 * @throws {ToolFailure} `failed` when diffing takes over 5 s or the diff is over 1 MiB
 *
 * @example
 * ```ts
 * import { diffTexts } from "./_diff_texts.ts";
 * const out = await diffTexts({
 *   old: "a\nb\n",
 *   new: "a\nc\n",
 *   old_name: "old",
 *   new_name: "new",
 *   context: 3,
 * });
 * if (!out.includes("-b\n+c")) throw new Error(out);
 * ```
 */
export function diffTexts(
  args: ToolArgs<"diff">,
  _context?: ToolContext,
): string {
  const a = args;
  if (a.old === a.new) return "(the texts are equal)";
  const patch = createTwoFilesPatch(
    a.old_name,
    a.new_name,
    a.old,
    a.new,
    undefined,
    undefined,
    {
      context: a.context,
      timeout: DIFF_TIMEOUT_MS,
    },
  );
  if (patch === undefined) {
    throw new ToolFailure(
      "failed",
      `The texts differ too much to diff within ${DIFF_TIMEOUT_MS / 1000} s: compare smaller parts`,
    );
  }
  const lines = patch.split("\n");
  lines.splice(
    0,
    Math.max(0, lines.findIndex((line) => line.startsWith("--- "))),
  );
  const text = lines.join("\n").replace(/\n+$/, "");
  return capOutput("diff", text);
}
