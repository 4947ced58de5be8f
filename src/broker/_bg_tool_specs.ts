/**
 * Specs of the background-job tools (`bg_*`), run by the broker's job manager in shell's sandbox
 * (see `background_jobs.ts`).
 *
 * @module
 */
import { z } from "zod";
import type { BuiltinTool } from "./builtin_tools.ts";

const JOB_ID = z.string().regex(/^bg[0-9]{1,6}$/, 'a job id such as "bg1"');
const TAIL_BYTES = z.int().min(1).max(262_144).optional().describe(
  "Bytes of each stream to show, the newest (default 16384)",
);

/** `bg_start`, `bg_list`, `bg_status`, `bg_output`, `bg_stop`, in the order the model sees them. */
export const BG_TOOL_SPECS: readonly BuiltinTool[] = [
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
];
