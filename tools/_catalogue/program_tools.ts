/**
 * The catalogue entries of the tools that run programs: `shell` (a fresh sandbox per command,
 * `src/broker/run_shell.ts`) and the background-job tools `bg_*` (the broker's job manager in
 * shell's sandbox, `src/broker/background_jobs.ts`). A command is classified from a real Bash
 * parse of it.
 *
 * @module
 */
import { z } from "zod";
import { toolEntry } from "./tool_entry.ts";

/** The `shell` tool: one command, 1 MiB per output stream, a timeout of 1–1800 s. */
export const SHELL_TOOL = toolEntry({
  name: "shell",
  category: "shell",
  rule: { kind: "command", arg: "command" },
  classWithoutGate: "code_execution",
  description:
    "Run a bash command in the workspace, inside a sandbox: the workspace is writable, the home directory is empty, /tmp is the host's and read-only, and $TMPDIR is a private scratch directory of this session (writable, kept until the session ends, not the host's /tmp). There is no network unless the command's network use is approved (then it goes through odek's egress proxy, set in HTTP_PROXY/HTTPS_PROXY, which refuses internal addresses); 127.0.0.1 is this session's own loopback, shared with bg_start jobs. Git hooks, .git/config, .envrc and editor settings are read-only. Returns the exit code, stdout and stderr (each capped at 1 MiB).",
  args: z.strictObject({
    command: z.string().min(1).max(256 * 1024),
    timeout_seconds: z.int().min(1).max(1800).optional().describe(
      "Kill the command and everything it started after this many seconds (default 1800)",
    ),
  }),
});

const JOB_ID = z.string().regex(/^bg[0-9]{1,6}$/, 'a job id such as "bg1"');
const TAIL_BYTES = z.int().min(1).max(262_144).optional().describe(
  "Bytes of each stream to show, the newest (default 16384)",
);

const INSPECTS = "inspects or stops this run's background jobs";

/** `bg_start`, `bg_list`, `bg_status`, `bg_output`, `bg_stop`, in the order the model sees them. */
export const BG_TOOLS = [
  toolEntry({
    name: "bg_start",
    category: "bg",
    rule: {
      kind: "command",
      arg: "command",
      alwaysAsk: {
        arg: "detach",
        equals: true,
        label: "detached",
        detail: "keeps running after the run ends",
        reason: "a detached job always asks",
      },
    },
    classWithoutGate: "code_execution",
    description:
      "Start a bash command in the background, in the same kind of sandbox as shell (workspace writable, empty home, private $TMPDIR, no network unless approved), e.g. a dev server or a long build: a server it starts on 127.0.0.1 answers later shell calls of this session. Returns a job id at once. Output is kept in bounded buffers (the newest 256 KiB per stream). Jobs keep running across this session's runs and are stopped when the session closes, unless detach is true, which always asks the operator first.",
    args: z.strictObject({
      command: z.string().min(1).max(256 * 1024),
      detach: z.boolean().default(false).describe(
        "Keep running after the run ends (always asks the operator)",
      ),
    }),
  }),
  toolEntry({
    name: "bg_list",
    category: "bg",
    rule: { kind: "fixed", class: "read", detail: INSPECTS },
    classWithoutGate: "read",
    description: "List this run's background jobs with their state, runtime and output sizes.",
    args: z.strictObject({}),
  }),
  toolEntry({
    name: "bg_status",
    category: "bg",
    rule: { kind: "fixed", class: "read", detail: INSPECTS },
    classWithoutGate: "read",
    description:
      "Show one background job's state (running, exited or stopped), exit code and output sizes.",
    args: z.strictObject({ id: JOB_ID }),
  }),
  toolEntry({
    name: "bg_output",
    category: "bg",
    rule: { kind: "fixed", class: "read", detail: INSPECTS },
    classWithoutGate: "read",
    description: "Show the newest output of a background job (stdout and stderr).",
    args: z.strictObject({ id: JOB_ID, tail_bytes: TAIL_BYTES }),
  }),
  toolEntry({
    name: "bg_stop",
    category: "bg",
    rule: { kind: "fixed", class: "read", detail: INSPECTS },
    classWithoutGate: "read",
    description:
      "Stop a background job and everything it started (SIGTERM, then SIGKILL after 2 s), and show its last output.",
    args: z.strictObject({ id: JOB_ID, tail_bytes: TAIL_BYTES }),
  }),
] as const;
