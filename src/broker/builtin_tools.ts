/**
 * The built-in tools: their names, what the model is told, the zod schema
 * of their arguments (validated in the core before any child sees them) and the category that
 * decides where they run (design §2).
 *
 * Limits follow odek-go §4.1: `read_file` 500 lines by default and at most 2000, 1 MiB of content;
 * `write_file` content at most 1 MiB; `glob` at most 1000 matches; `shell` 1 MiB per output
 * stream and a timeout of 1–1800 s. The file tools are in `_file_tool_specs.ts`, the compute
 * tools in `_compute_tool_specs.ts`; docs/tools.md lists every tool with its limits and scope.
 *
 * @module
 */
import { z } from "zod";
import { BG_TOOL_SPECS } from "./_bg_tool_specs.ts";
import { COMPUTE_TOOL_SPECS } from "./_compute_tool_specs.ts";
import { CORE_TOOL_SPECS } from "./_core_tool_specs.ts";
import { FILE_TOOL_SPECS } from "./_file_tool_specs.ts";
import { WEB_TOOLS } from "./web_tools.ts";

/**
 * Where a tool runs: `files` in the long-lived file-tool child of the call's scope, `shell` as a
 * program in a fresh sandbox, `compute` in the long-lived compute child, which has no
 * permissions at all, `web` in the long-lived web tool child of the call's scope (network only
 * through the egress proxy), `bg` in the broker's background-job manager (shell's sandbox), `core` in
 * the core itself (`plan`, `clarify`: they touch nothing outside the run).
 */
export type ToolCategory = "files" | "shell" | "compute" | "web" | "bg" | "core";

/** One built-in tool. */
export interface BuiltinTool {
  name: string;
  description: string;
  category: ToolCategory;
  /** Validates the parsed arguments. */
  schema: z.ZodType<Record<string, unknown>>;
}

export { MAX_FILE_CONTENT_BYTES } from "./_file_tool_specs.ts";
/** Largest output kept per shell stream, in bytes (1 MiB). */
export const MAX_SHELL_STREAM_BYTES = 1024 * 1024;

/** Every built-in tool, in the order the model sees them. */
export const BUILTIN_TOOLS: readonly BuiltinTool[] = [
  ...FILE_TOOL_SPECS,
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
  ...COMPUTE_TOOL_SPECS,
  ...WEB_TOOLS,
  ...BG_TOOL_SPECS,
  ...CORE_TOOL_SPECS,
];
