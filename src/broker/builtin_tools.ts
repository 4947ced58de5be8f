/**
 * The built-in tools of the walking skeleton: their names, what the model is told, the zod schema
 * of their arguments (validated in the core before any child sees them) and the category that
 * decides where they run (design §2).
 *
 * Limits follow odek-go §4.1: `read_file` 500 lines by default and at most 2000, 1 MiB of content;
 * `write_file` content at most 1 MiB; `glob` at most 1000 matches; `shell` 1 MiB per output
 * stream and a timeout of 1–1800 s.
 *
 * @module
 */
import { z } from "zod";
import { WEB_TOOLS } from "./web_tools.ts";

/**
 * Where a tool runs: in a long-lived Deno tool child (`files`, `web`), or as a program in a fresh
 * sandbox (`shell`).
 */
export type ToolCategory = "files" | "shell" | "web";

/** One built-in tool. */
export interface BuiltinTool {
  name: string;
  description: string;
  category: ToolCategory;
  /** Validates the parsed arguments. */
  schema: z.ZodType<Record<string, unknown>>;
}

/** Largest content `read_file` returns and `write_file` accepts, in bytes (1 MiB). */
export const MAX_FILE_CONTENT_BYTES = 1024 * 1024;
/** Largest output kept per shell stream, in bytes (1 MiB). */
export const MAX_SHELL_STREAM_BYTES = 1024 * 1024;

const path = z.string().min(1).max(4096).describe(
  "Path, relative to the workspace or absolute inside it",
);

/** Every built-in tool, in the order the model sees them. */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  {
    name: "read_file",
    category: "files",
    description:
      "Read a text file from the workspace. Returns numbered lines `N|text` and the total line count. Refuses binary files and directories.",
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
      "Write a whole file in the workspace atomically, creating parent directories. Existing files are replaced.",
    schema: z.strictObject({
      path,
      content: z.string().refine(
        (s) => new TextEncoder().encode(s).length <= MAX_FILE_CONTENT_BYTES,
        {
          message: "content is larger than 1 MiB",
        },
      ),
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
    name: "shell",
    category: "shell",
    description:
      "Run a bash command in the workspace, inside a sandbox: the workspace is writable, the home directory is empty, there is no network unless the command's network use is approved (then it goes through odek's egress proxy, set in HTTP_PROXY/HTTPS_PROXY, which refuses internal addresses). Returns the exit code, stdout and stderr (each capped at 1 MiB).",
    schema: z.strictObject({
      command: z.string().min(1).max(256 * 1024),
      timeout_seconds: z.int().min(1).max(1800).optional().describe(
        "Kill the command and everything it started after this many seconds (default 1800)",
      ),
    }),
  },
  ...WEB_TOOLS,
];
