/**
 * The words of the terminal renderer's tool and file lines (private to `cli/`): what each tool
 * call is aimed at, which part of a result is worth seeing, and changed files with their counts.
 *
 * @module
 */
import type { FileChangeData, RunEventData } from "../loop/run_event.ts";

/** Tools whose output is worth reading from the end (test summaries, stack traces). */
const TAIL_TOOLS = new Set(["shell", "bg_output", "bg_stop", "bg_status"]);

/**
 * What a tool call is aimed at, on one line: the path (and line range) of a read, the command of
 * `shell` and `bg_start` (newlines shown as ⏎, so a harmless first line cannot hide the rest),
 * the job of a `bg_*` call, the URL of a web call, the pattern of a search.
 *
 * @example
 * ```ts
 * import { describeTarget } from "./_tool_lines.ts";
 * if (describeTarget("read_file", { path: "a.ts", offset: 10, limit: 5 }) !== "a.ts:10-14") throw new Error();
 * ```
 */
export function describeTarget(name: string, args: unknown): string {
  if (typeof args !== "object" || args === null) return "";
  const a = args as Record<string, unknown>;
  const str = (key: string) => (typeof a[key] === "string" ? a[key] as string : undefined);
  const num = (key: string) => (typeof a[key] === "number" ? a[key] as number : undefined);
  let target: string | undefined;
  switch (name) {
    case "read_file": {
      const path = str("path");
      const offset = num("offset");
      const limit = num("limit");
      target = path === undefined
        ? undefined
        : offset === undefined && limit === undefined
        ? path
        : `${path}:${offset ?? 1}-${(offset ?? 1) + (limit ?? 500) - 1}`;
      break;
    }
    case "head_tail":
      target = str("path") && `${str("path")} (${str("from") ?? "head"} ${num("lines") ?? 20})`;
      break;
    case "search_files":
      target = str("pattern") && `/${str("pattern")}/${str("path") ? ` in ${str("path")}` : ""}`;
      break;
    case "bg_status":
    case "bg_output":
    case "bg_stop":
      target = str("id");
      break;
    case "http_request":
      target = str("url") && `${str("method") ?? "GET"} ${str("url")}`;
      break;
    default:
      target = str("command") ?? str("path") ?? str("url") ?? str("pattern") ?? str("expression");
  }
  if (target === undefined) return "";
  const oneLine = target.trim().replace(/\s*\n\s*/g, " ⏎ ");
  return oneLine.length > 160 ? `${oneLine.slice(0, 159)}…` : oneLine;
}

/**
 * The part of a completed call's result to show: the end for shell and job output (where test
 * summaries are), the start for the rest; either carries its `… N more lines` marker.
 */
export function completedBody(
  name: string,
  data: RunEventData["tool_call_completed"],
): string {
  return TAIL_TOOLS.has(name) && data.tail !== undefined ? data.tail : data.preview;
}

/**
 * A failed call's message: its first line (what failed, the exit code), then `… N more lines`
 * and the last lines when it is long.
 */
export function failedBody(message: string, lines = 12): string {
  const all = message.replace(/\n+$/, "").split("\n");
  if (all.length <= lines + 1) return all.join("\n");
  const rest = all.length - 1 - lines;
  return [all[0], `… ${rest} more line${rest === 1 ? "" : "s"}`, ...all.slice(-lines)].join("\n");
}

const MARK: Record<FileChangeData["change"], string> = { added: "A", modified: "M", deleted: "D" };

/** `+3 -1` (or `binary`). */
export function counts(file: Omit<FileChangeData, "diff">): string {
  if (file.binary) return "binary";
  return [file.added > 0 ? `+${file.added}` : "", file.removed > 0 ? `-${file.removed}` : ""]
    .filter((part) => part !== "").join(" ") || "±0";
}

/** One line per file: `M stats.sh  +1 -1`, at most `max` of them, then `… and N more files`. */
export function fileList(files: readonly Omit<FileChangeData, "diff">[], max = 20): string[] {
  const width = Math.min(48, Math.max(...files.slice(0, max).map((f) => f.path.length)));
  const lines = files.slice(0, max).map((f) =>
    `${MARK[f.change]} ${f.path.padEnd(width)}  ${counts(f)}`
  );
  if (files.length > max) lines.push(`… and ${files.length - max} more files`);
  return lines;
}

/**
 * The lines to show of one changed file under the call that changed it: a new file's first
 * lines, an edited file's diff hunks (each already cut with a marker), nothing for a deletion.
 */
export function fileBody(file: FileChangeData, newFileLines = 10): string[] {
  if (file.binary || file.diff === undefined || file.change === "deleted") return [];
  const lines = file.diff.split("\n");
  if (file.change === "added") {
    const body = lines.filter((l) => l.startsWith("+")).map((l) => l.slice(1));
    if (body.length <= newFileLines) return body;
    return [...body.slice(0, newFileLines), `… ${file.added - newFileLines} more lines`];
  }
  return lines;
}
