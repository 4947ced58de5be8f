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

/**
 * Where a tool runs: in the long-lived Deno file-tool child, as a program in a fresh sandbox, or
 * in the core itself (`plan`, `clarify`: they touch nothing outside the run).
 */
export type ToolCategory = "files" | "shell" | "bg" | "core";

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

const JOB_ID = z.string().regex(/^bg[0-9]{1,6}$/, 'a job id such as "bg1"');
const TAIL_BYTES = z.int().min(1).max(262_144).optional().describe(
  "Bytes of each stream to show, the newest (default 16384)",
);

const stepId = z.string().regex(/^[^\s\[\]]{1,32}$/, "1-32 characters, no whitespace or brackets");

/** Arguments of `plan` (odek-go §4.3 verbs, plus acceptance checks). */
const PLAN_ARGS = z.strictObject({
  action: z.enum(["create", "update", "get"]),
  steps: z.array(z.strictObject({
    id: stepId,
    title: z.string().min(1).max(200),
    check: z.strictObject({
      tool: z.string().min(1).max(64).describe("The tool whose successful call proves the step"),
      args_include: z.string().min(1).max(200).optional().describe(
        "Text the proving call's arguments must contain",
      ),
    }).optional(),
  })).min(1).max(12).optional().describe('For "create": the steps'),
  updates: z.array(z.strictObject({
    id: stepId,
    status: z.enum(["pending", "in_progress", "done", "blocked"]).optional(),
    note: z.string().max(500).optional(),
  })).min(1).max(12).optional().describe('For "update": the changes, applied all or none'),
}).superRefine((args, ctx) => {
  if (args.action === "create" && !args.steps) {
    ctx.addIssue({ code: "custom", path: ["steps"], message: 'action "create" needs steps' });
  }
  if (args.action === "update" && !args.updates) {
    ctx.addIssue({ code: "custom", path: ["updates"], message: 'action "update" needs updates' });
  }
});

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
      "Run a bash command in the workspace, inside a sandbox: the workspace is writable, the home directory is empty, there is no network. Returns the exit code, stdout and stderr (each capped at 1 MiB).",
    schema: z.strictObject({
      command: z.string().min(1).max(256 * 1024),
      timeout_seconds: z.int().min(1).max(1800).optional().describe(
        "Kill the command and everything it started after this many seconds (default 1800)",
      ),
    }),
  },
  {
    name: "bg_start",
    category: "bg",
    description:
      "Start a bash command in the background, in the same kind of sandbox as shell (workspace writable, empty home, no network unless approved), e.g. a dev server or a long build. Returns a job id at once. Output is kept in bounded buffers (the newest 256 KiB per stream). Jobs are stopped when the run ends, unless detach is true, which always asks the operator first.",
    schema: z.strictObject({
      command: z.string().min(1).max(256 * 1024),
      detach: z.boolean().default(false).describe(
        "Keep running after the run ends (always asks the operator)",
      ),
    }),
  },
  {
    name: "bg_list",
    category: "bg",
    description: "List this run's background jobs with their state, runtime and output sizes.",
    schema: z.strictObject({}),
  },
  {
    name: "bg_status",
    category: "bg",
    description:
      "Show one background job's state (running, exited or stopped), exit code and output sizes.",
    schema: z.strictObject({ id: JOB_ID }),
  },
  {
    name: "bg_output",
    category: "bg",
    description: "Show the newest output of a background job (stdout and stderr).",
    schema: z.strictObject({ id: JOB_ID, tail_bytes: TAIL_BYTES }),
  },
  {
    name: "bg_stop",
    category: "bg",
    description:
      "Stop a background job and everything it started (SIGTERM, then SIGKILL after 2 s), and show its last output.",
    schema: z.strictObject({ id: JOB_ID, tail_bytes: TAIL_BYTES }),
  },
  {
    name: "plan",
    category: "core",
    description:
      'Keep a plan for this run. action "create" replaces the plan with steps (1-12; each may name a check: a tool whose successful call proves the step done, e.g. {"tool":"shell","args_include":"deno test"}); "update" changes statuses (pending, in_progress, done, blocked) and notes atomically; "get" shows it. A step with a check can be set done only after a successful call of that tool completed after the plan was created. The plan stays visible at the top of the conversation.',
    schema: PLAN_ARGS,
  },
  {
    name: "clarify",
    category: "core",
    description:
      "Ask the operator one question and wait for the answer. Use only when you cannot proceed safely without it; when nobody can answer (a non-interactive run) the call is denied and you should continue on your best judgement and say what you assumed.",
    schema: z.strictObject({
      question: z.string().min(1).max(2000).describe("The question, self-contained"),
    }),
  },
];
