/**
 * What the operator sees when a `patch` call asks for approval.
 *
 * @module
 */
import { renderWriteDiff } from "./render_write_diff.ts";

/** Diff lines of a `diff` argument shown at most. */
const DEFAULT_SHOWN_LINES = 400;

/**
 * The preview of a `patch` call: for `old_string`/`new_string`, the diff of the whole file when
 * `old_string` occurs exactly once in `before` (else the replacement alone, with a line saying
 * the tool will refuse it); for `diff`, the diff's hunks as the model sent them under `---`/`+++`
 * headers naming `path` (the tool ignores the diff's own file names), at most 400 lines.
 *
 * @param before the file's current text, or `null` when it cannot be read
 * @param args the call's arguments (`old_string`, `new_string`, `diff`)
 * @param path the path shown in the header
 * @param options `maxLines`: diff lines shown at most, the rest counted (default 400)
 * @returns the preview, or `undefined` when the arguments hold no edit
 *
 * @example A unique replacement shows the file's diff
 * ```ts
 * import { renderPatchPreview } from "./render_patch_preview.ts";
 * const preview = renderPatchPreview("a\nb\n", { old_string: "b", new_string: "B" }, "x.txt");
 * if (preview !== "--- x.txt\n+++ x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B") throw new Error(preview);
 * ```
 */
export function renderPatchPreview(
  before: string | null,
  args: Record<string, unknown>,
  path: string,
  options: { maxLines?: number } = {},
): string | undefined {
  const shown = options.maxLines ?? DEFAULT_SHOWN_LINES;
  if (typeof args.diff === "string") {
    // The tool edits `path` whatever the diff's own headers say: show `path`, not them.
    const sent = args.diff.replace(/\n$/, "").split("\n");
    const firstHunk = sent.findIndex((line) => line.startsWith("@@"));
    const lines = [`--- ${path}`, `+++ ${path}`, ...sent.slice(Math.max(0, firstHunk))];
    if (lines.length <= shown) return lines.join("\n");
    const rest = lines.length - shown;
    return `${lines.slice(0, shown).join("\n")}\n… ${rest} more diff lines not shown`;
  }
  const { old_string: old, new_string: replacement } = args;
  if (typeof old !== "string" || typeof replacement !== "string" || old === "") return undefined;
  const first = before?.indexOf(old) ?? -1;
  if (before !== null && first !== -1 && before.indexOf(old, first + 1) === -1) {
    const after = before.slice(0, first) + replacement + before.slice(first + old.length);
    return renderWriteDiff(before, after, { path, maxLines: shown });
  }
  const why = before === null
    ? "the file cannot be read for a preview"
    : first === -1
    ? "old_string is not in the file now: the tool will refuse this call"
    : "old_string occurs more than once: the tool will refuse this call";
  return `${
    renderWriteDiff(old, replacement, { path, context: 1_000, maxLines: shown })
  }\n(${why})`;
}
