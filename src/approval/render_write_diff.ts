/**
 * A unified line diff of a file write, for the `preview` of an approval request.
 *
 * @module
 */

/** Options for {@linkcode renderWriteDiff}. */
export interface RenderWriteDiffOptions {
  /** The path shown in the `---`/`+++` header. @default "file" */
  path?: string;
  /** Unchanged lines shown around each change. @default 3 */
  context?: number;
  /** Diff lines shown at most (headers excluded); the rest is counted in a last line. @default 400 */
  maxLines?: number;
  /**
   * Largest `old lines × new lines` product (after common leading and trailing lines are
   * dropped) diffed line by line; above it the changed region is shown as all old lines removed
   * and all new lines added, which is correct but longer. Bounds time and memory (4 bytes each).
   * @default 4_000_000
   */
  maxCells?: number;
}

type Op = { kind: " " | "-" | "+"; text: string; oldAt: number; newAt: number };

function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Minimal edit of `a` into `b` by longest common subsequence (DP over `a.length × b.length`). */
function middleOps(a: string[], b: string[], maxCells: number): [" " | "-" | "+", string][] {
  if (a.length * b.length > maxCells || a.length === 0 || b.length === 0) {
    return [...a.map((t) => ["-", t] as ["-", string]), ...b.map((t) => ["+", t] as ["+", string])];
  }
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j]
        ? lcs[(i + 1) * w + j + 1] + 1
        : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  const out: [" " | "-" | "+", string][] = [];
  let i = 0, j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) out.push([" ", a[i++]]), j++;
    else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) out.push(["-", a[i++]]);
    else out.push(["+", b[j++]]);
  }
  while (i < a.length) out.push(["-", a[i++]]);
  while (j < b.length) out.push(["+", b[j++]]);
  return out;
}

function allOps(a: string[], b: string[], maxCells: number): Op[] {
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const pairs: [" " | "-" | "+", string][] = [
    ...a.slice(0, p).map((t) => [" ", t] as [" ", string]),
    ...middleOps(a.slice(p, a.length - s), b.slice(p, b.length - s), maxCells),
    ...a.slice(a.length - s).map((t) => [" ", t] as [" ", string]),
  ];
  const ops: Op[] = [];
  let oldAt = 0, newAt = 0;
  for (const [kind, text] of pairs) {
    ops.push({ kind, text, oldAt, newAt });
    if (kind !== "+") oldAt++;
    if (kind !== "-") newAt++;
  }
  return ops;
}

/**
 * A unified diff (`---`/`+++` header, `@@ -a,b +c,d @@` hunks, ` `/`-`/`+` lines) of writing
 * `after` over `before`, for showing a `write_file` call to the operator. Lines are split on
 * `\n`; a missing final newline is not marked. Control characters are left as they are: the
 * terminal approver escapes them when it prints the preview.
 *
 * @param before the file's current text, or `null` if it does not exist yet
 * @param after the text the call would write
 * @param options header path, context lines and output limits
 * @returns the diff, or `<header>\n(no changes)` when the texts are equal
 *
 * @example Show one changed line
 * ```ts
 * import { renderWriteDiff } from "./render_write_diff.ts";
 * const diff = renderWriteDiff("a\nb\nc\n", "a\nB\nc\n", { path: "/ws/x.txt" });
 * const expected = "--- /ws/x.txt\n+++ /ws/x.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c";
 * if (diff !== expected) throw new Error(diff);
 * ```
 */
export function renderWriteDiff(
  before: string | null,
  after: string,
  options: RenderWriteDiffOptions = {},
): string {
  const path = options.path ?? "file";
  const context = options.context ?? 3;
  const maxLines = options.maxLines ?? 400;
  const header = `--- ${before === null ? "/dev/null" : path}\n+++ ${path}`;
  const ops = allOps(linesOf(before ?? ""), linesOf(after), options.maxCells ?? 4_000_000);
  const changed = ops.flatMap((op, i) => (op.kind === " " ? [] : [i]));
  if (changed.length === 0) return `${header}\n(no changes)`;
  const body: string[] = [];
  let k = 0;
  while (k < changed.length) {
    let last = k;
    while (last + 1 < changed.length && changed[last + 1] - changed[last] <= 2 * context + 1) {
      last++;
    }
    const from = Math.max(0, changed[k] - context);
    const to = Math.min(ops.length, changed[last] + context + 1);
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((op) => op.kind !== "+").length;
    const newCount = hunk.filter((op) => op.kind !== "-").length;
    const oldStart = oldCount === 0 ? ops[from].oldAt : ops[from].oldAt + 1;
    const newStart = newCount === 0 ? ops[from].newAt : ops[from].newAt + 1;
    body.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of hunk) body.push(`${op.kind}${op.text}`);
    k = last + 1;
  }
  if (body.length > maxLines) {
    const rest = body.length - maxLines;
    body.length = maxLines;
    body.push(`… ${rest} more diff line${rest === 1 ? "" : "s"} not shown`);
  }
  return `${header}\n${body.join("\n")}`;
}
