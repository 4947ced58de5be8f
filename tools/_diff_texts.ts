/**
 * The `diff` tool: a unified diff of two texts given inline, made with the npm `diff` package
 * (jsdiff). It runs in the compute child and reads no files (compare files with `shell`'s
 * `diff -u`, or read them first).
 *
 * @module
 */
import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import { boundedText, capOutput } from "./_compute_limits.ts";
import { ToolFailure } from "./_protocol.ts";

/** Longest time spent diffing, in milliseconds. */
export const DIFF_TIMEOUT_MS = 5_000;

/** Arguments of `diff`. */
export const DiffTextsArgsSchema = z.strictObject({
  old: boundedText("old"),
  new: boundedText("new"),
  old_name: z.string().min(1).max(200).default("old"),
  new_name: z.string().min(1).max(200).default("new"),
  context: z.int().min(0).max(50).default(3),
});

/**
 * The unified diff (`---`/`+++` headers, `@@` hunks) that turns `old` into `new`, line by line,
 * with `context` unchanged lines around each change.
 *
 * @param _workspace unused (the compute child reaches no files)
 * @param args `{ old, new, old_name?, new_name?, context? }` (validated here)
 * @returns the diff, or a line saying the texts are equal
 * @throws {ToolFailure} `failed` when diffing takes over 5 s or the diff is over 1 MiB
 *
 * @example
 * ```ts
 * import { diffTexts } from "./_diff_texts.ts";
 * const out = await diffTexts("/", { old: "a\nb\n", new: "a\nc\n" });
 * if (!out.includes("-b\n+c")) throw new Error(out);
 * ```
 */
export function diffTexts(
  _workspace: string,
  args: Record<string, unknown>,
): string {
  const a = DiffTextsArgsSchema.parse(args);
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
