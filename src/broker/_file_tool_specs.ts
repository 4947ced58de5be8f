/**
 * The specs of the file tools (category `files`, served by `tools/files.ts`): what the model is
 * told and the zod schemas checked in the core before the child sees a call. The child checks the
 * same limits again (`tools/_*.ts`).
 *
 * @module
 */
import { z } from "zod";
import type { BuiltinTool } from "./builtin_tools.ts";

/** Largest content `read_file` returns and `write_file` accepts, in bytes (1 MiB). */
export const MAX_FILE_CONTENT_BYTES = 1024 * 1024;

const path = z.string().min(1).max(4096).describe(
  "Path, relative to the workspace or absolute inside it",
);
const fitsInMiB = (s: string) => new TextEncoder().encode(s).length <= MAX_FILE_CONTENT_BYTES;
const SKIPS =
  ".gitignore'd paths and .git, node_modules, vendor, .venv, __pycache__, dist, build, target, .next";

/** The file tools, in the order the model sees them. */
export const FILE_TOOL_SPECS: readonly BuiltinTool[] = [
  {
    name: "read_file",
    category: "files",
    description:
      "Read a text file from the workspace. Returns numbered lines `N|text` and the total line count. Refuses binary files (NUL bytes or invalid UTF-8 in the first 8 KiB) and directories.",
    schema: z.strictObject({
      path,
      offset: z.int().min(1).default(1).describe("First line to return, 1-based"),
      limit: z.int().min(1).max(2000).default(500).describe("Most lines to return (max 2000)"),
    }),
  },
  {
    name: "write_file",
    category: "files",
    description:
      "Write a whole file in the workspace atomically, creating parent directories. Existing files are replaced. For small edits to an existing file prefer patch.",
    schema: z.strictObject({
      path,
      content: z.string().refine(fitsInMiB, { message: "content is larger than 1 MiB" }),
    }),
  },
  {
    name: "patch",
    category: "files",
    description:
      "Edit an existing text file atomically. Either give old_string and new_string: old_string must occur exactly once in the file (copy it exactly, with indentation; include surrounding lines to make it unique). Or give diff: a unified diff of this one file (`@@ -a,b +c,d @@` hunks with ` `, `-`, `+` lines); each hunk's context and removed lines must match exactly one place. Ambiguous or stale edits are refused with the reason. Returns the diff of the change.",
    schema: z.strictObject({
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
  },
  {
    name: "search_files",
    category: "files",
    description:
      `Search the contents of workspace text files for a JavaScript regular expression. Returns \`path:line:text\` lines sorted by path (at most max_results, 256 KiB). Skips ${SKIPS}, binary files and files over 10 MiB.`,
    schema: z.strictObject({
      pattern: z.string().min(1).max(1000).describe("JavaScript regular expression"),
      path: path.default(".").describe("Directory (or one file) to search"),
      include: z.string().min(1).max(1000).optional().describe(
        "Only files whose path relative to `path` matches this glob, e.g. `**/*.ts`",
      ),
      ignore_case: z.boolean().default(false),
      max_results: z.int().min(1).max(500).default(100).describe("Most matching lines (max 500)"),
    }),
  },
  {
    name: "glob",
    category: "files",
    description:
      "List workspace files matching a glob pattern such as `src/**/*.ts`, sorted. Skips .git and node_modules. At most 1000 matches.",
    schema: z.strictObject({
      pattern: z.string().min(1).max(1024),
      path: path.default(".").describe("Directory to search from"),
    }),
  },
  {
    name: "file_info",
    category: "files",
    description:
      "Describe one workspace path without reading it whole: type, size, mode, modification time, line count of a text file, entry count of a directory, target of a symlink (never followed).",
    schema: z.strictObject({ path }),
  },
  {
    name: "tree",
    category: "files",
    description:
      `Outline a workspace directory: one indented line per entry with file sizes, down to depth levels (default 3, max 10), at most max_entries (default 500, max 1000). Skips ${SKIPS}.`,
    schema: z.strictObject({
      path: path.default("."),
      depth: z.int().min(1).max(10).default(3),
      max_entries: z.int().min(1).max(1000).default(500),
    }),
  },
  {
    name: "head_tail",
    category: "files",
    description:
      "The first (from=head) or last (from=tail) lines of a workspace text file, numbered `N|text` like read_file (default 20 lines, max 2000).",
    schema: z.strictObject({
      path,
      from: z.enum(["head", "tail"]).default("head"),
      lines: z.int().min(1).max(2000).default(20),
    }),
  },
];
