/**
 * The catalogue entries of the file tools (category `files`, served by `tools/files.ts` in one
 * long-lived child per scope). Limits follow odek-go §4.1: `read_file` 500 lines by default and
 * at most 2000, 1 MiB of content; `write_file` content at most 1 MiB; `glob` at most 1000
 * matches.
 *
 * @module
 */
import { z } from "zod";
import { FILE_TOOL_HANDLERS } from "./file_args_check.ts";
import { toolEntry } from "./tool_entry.ts";

/** Largest content `read_file` returns and `write_file` accepts, in bytes (1 MiB). */
export const MAX_FILE_CONTENT_BYTES = 1024 * 1024;

const path = z.string().min(1).max(4096).describe(
  "Path, relative to the workspace or absolute inside it",
);
const fitsInMiB = (s: string) => new TextEncoder().encode(s).length <= MAX_FILE_CONTENT_BYTES;
const SKIPS =
  ".gitignore'd paths and .git, node_modules, vendor, .venv, __pycache__, dist, build, target, .next";

/** The file tools, in the order the model sees them. */
export const FILE_TOOLS = [
  toolEntry({
    name: "read_file",
    category: "files",
    handler: FILE_TOOL_HANDLERS.read_file,
    rule: { kind: "path", arg: "path", access: "read" },
    classWithoutGate: "read",
    description:
      "Read a text file from the workspace. Returns numbered lines `N|text` and the total line count. Refuses binary files (NUL bytes or invalid UTF-8 in the first 8 KiB) and directories.",
    args: z.strictObject({
      path,
      offset: z.int().min(1).default(1).describe("First line to return, 1-based"),
      limit: z.int().min(1).max(2000).default(500).describe("Most lines to return (max 2000)"),
    }),
  }),
  toolEntry({
    name: "write_file",
    category: "files",
    handler: FILE_TOOL_HANDLERS.write_file,
    rule: { kind: "path", arg: "path", access: "write" },
    classWithoutGate: "local_write",
    description:
      "Write a whole file in the workspace atomically, creating parent directories. Existing files are replaced. For small edits to an existing file prefer patch.",
    args: z.strictObject({
      path,
      content: z.string().refine(fitsInMiB, {
        error: (issue) =>
          `content is ${
            new TextEncoder().encode(String(issue.input)).length
          } bytes, more than the 1 MiB write_file accepts: write the file in parts`,
      }),
    }),
  }),
  toolEntry({
    name: "patch",
    category: "files",
    handler: FILE_TOOL_HANDLERS.patch,
    rule: { kind: "path", arg: "path", access: "write" },
    classWithoutGate: "local_write",
    description:
      "Edit an existing text file atomically. Either give old_string and new_string: old_string must occur exactly once in the file (copy it exactly, with indentation; include surrounding lines to make it unique). Or give diff: a unified diff of this one file (`@@ -a,b +c,d @@` hunks with ` `, `-`, `+` lines); each hunk's context and removed lines must match exactly one place. Ambiguous or stale edits are refused with the reason. Returns the diff of the change.",
    args: z.strictObject({
      path,
      old_string: z.string().min(1).refine(fitsInMiB, {
        message: "old_string is larger than 1 MiB",
      })
        .optional().describe("Exact text to replace; must occur exactly once"),
      new_string: z.string().refine(fitsInMiB, { message: "new_string is larger than 1 MiB" })
        .optional().describe("Replacement for old_string"),
      diff: z.string().min(1).refine(fitsInMiB, { message: "diff is larger than 1 MiB" })
        .optional().describe("A unified diff of this file, instead of old_string/new_string"),
    }).refine(
      (a) =>
        a.diff !== undefined
          ? a.old_string === undefined && a.new_string === undefined
          : a.old_string !== undefined && a.new_string !== undefined,
      { message: "give either old_string and new_string, or diff, not both" },
    ),
  }),
  toolEntry({
    name: "search_files",
    category: "files",
    handler: FILE_TOOL_HANDLERS.search_files,
    rule: { kind: "path", arg: "path", access: "read", default: "." },
    classWithoutGate: "read",
    description:
      `Search the contents of workspace text files for a JavaScript regular expression. Returns \`path:line:text\` lines sorted by path (at most max_results, 256 KiB). Skips ${SKIPS}, binary files and files over 10 MiB.`,
    args: z.strictObject({
      pattern: z.string().min(1).max(1000).describe("JavaScript regular expression"),
      path: path.default(".").describe("Directory (or one file) to search"),
      include: z.string().min(1).max(1000).optional().describe(
        "Only files whose path relative to `path` matches this glob, e.g. `**/*.ts`",
      ),
      ignore_case: z.boolean().default(false),
      max_results: z.int().min(1).max(500).default(100).describe("Most matching lines (max 500)"),
    }),
  }),
  toolEntry({
    name: "glob",
    category: "files",
    handler: FILE_TOOL_HANDLERS.glob,
    rule: { kind: "glob", pattern: "pattern", base: "path" },
    classWithoutGate: "read",
    description:
      "List workspace files matching a glob pattern such as `src/**/*.ts`, sorted. Skips .git and node_modules. At most 1000 matches.",
    args: z.strictObject({
      pattern: z.string().min(1).max(1024),
      path: path.default(".").describe("Directory to search from"),
    }),
  }),
  toolEntry({
    name: "file_info",
    category: "files",
    handler: FILE_TOOL_HANDLERS.file_info,
    rule: { kind: "path", arg: "path", access: "read" },
    classWithoutGate: "read",
    description:
      "Describe one workspace path without reading it whole: type, size, mode, modification time, line count of a text file, entry count of a directory, target of a symlink (never followed).",
    args: z.strictObject({ path }),
  }),
  toolEntry({
    name: "tree",
    category: "files",
    handler: FILE_TOOL_HANDLERS.tree,
    rule: { kind: "path", arg: "path", access: "read", default: "." },
    classWithoutGate: "read",
    description:
      `Outline a workspace directory: one indented line per entry with file sizes, down to depth levels (default 3, max 10), at most max_entries (default 500, max 1000). Skips ${SKIPS}.`,
    args: z.strictObject({
      path: path.default("."),
      depth: z.int().min(1).max(10).default(3),
      max_entries: z.int().min(1).max(1000).default(500),
    }),
  }),
  toolEntry({
    name: "head_tail",
    category: "files",
    handler: FILE_TOOL_HANDLERS.head_tail,
    rule: { kind: "path", arg: "path", access: "read" },
    classWithoutGate: "read",
    description:
      "The first (from=head) or last (from=tail) lines of a workspace text file, numbered `N|text` like read_file (default 20 lines, max 2000).",
    args: z.strictObject({
      path,
      from: z.enum(["head", "tail"]).default("head"),
      lines: z.int().min(1).max(2000).default(20),
    }),
  }),
] as const;
