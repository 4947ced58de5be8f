/**
 * The `bg_*` tools over {@linkcode BackgroundJobs}: arguments in, a tool result out (private to
 * `broker/`). Failures are data.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { BackgroundJobs, JobStatus } from "./background_jobs.ts";
import type { PermissionSet } from "./permission_set.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import type { ToolResult } from "./tool_broker.ts";

/** Bytes of each stream `bg_output` and `bg_stop` show by default. */
const DEFAULT_TAIL_BYTES = 16_384;

/**
 * Run one `bg_*` call.
 *
 * @param scope the sandbox of a `bg_start` (derived from its verdict like a `shell` command's)
 */
export async function runBackgroundTool(
  jobs: BackgroundJobs,
  name: string,
  args: Record<string, unknown>,
  scope: {
    set: PermissionSet;
    context: SandboxContext;
    egressToken?: string;
    /** Called when a started job ends; also when it could not start. */
    onExit?: () => void;
  },
): Promise<ToolResult> {
  let started = false;
  try {
    const result = await run(jobs, name, args, scope, () => (started = true));
    return result;
  } finally {
    if (name === "bg_start" && !started) scope.onExit?.();
  }
}

async function run(
  jobs: BackgroundJobs,
  name: string,
  args: Record<string, unknown>,
  scope: {
    set: PermissionSet;
    context: SandboxContext;
    egressToken?: string;
    onExit?: () => void;
  },
  onStarted: () => void,
): Promise<ToolResult> {
  try {
    switch (name) {
      case "bg_start": {
        if (scope.context.mode === "docker") {
          return {
            ok: false,
            error: {
              kind: "sandbox_unavailable",
              message:
                'Background jobs run in bwrap sandboxes, and this odek runs programs in docker: use shell, or set "sandbox" to "bwrap"',
            },
          };
        }
        const detached = args.detach === true;
        const job = await jobs.start(String(args.command), { ...scope, detached });
        onStarted();
        const where = detached
          ? `; it is detached: it keeps running after this session closes, and its output goes to ${job.logFile}`
          : "; it is stopped when this session closes (the interactive session, serve session or one-shot run that started it)";
        return ok(
          `started ${job.id}${where}. Use bg_status, bg_output and bg_stop with id "${job.id}".`,
        );
      }
      case "bg_list": {
        const list = jobs.list();
        return ok(list.length === 0 ? "no background jobs in this run" : list.map(line).join("\n"));
      }
      case "bg_status": {
        const status = statusOf(jobs, String(args.id));
        return { ok: true, output: line(status), stallKey: sameness(status) };
      }
      case "bg_output": {
        const id = String(args.id);
        const status = statusOf(jobs, id);
        return {
          ok: true,
          output: `${line(status)}\n${streams(jobs, id, tail(args))}`,
          stallKey: `${sameness(status)} ${tail(args)}`,
        };
      }
      case "bg_stop": {
        const id = String(args.id);
        statusOf(jobs, id);
        const status = await jobs.stop(id);
        return ok(`${line(status)}\n${streams(jobs, id, tail(args))}`);
      }
      default:
        return {
          ok: false,
          error: { kind: "unknown_tool", message: `${name} is not a background tool` },
        };
    }
  } catch (error) {
    if (error instanceof OdekError && error.code === "SANDBOX_UNAVAILABLE") {
      return { ok: false, error: { kind: "sandbox_unavailable", message: error.message } };
    }
    if (error instanceof OdekError || error instanceof RangeError) throw error;
    return { ok: false, error: { kind: "failed", message: (error as Error).message } };
  }
}

function ok(output: string): ToolResult & { ok: true } {
  return { ok: true, output };
}

function statusOf(jobs: BackgroundJobs, id: string): JobStatus {
  const status = jobs.status(id);
  if (!status) {
    const known = jobs.list().map((j) => j.id).join(", ") || "none";
    throw new Error(`There is no background job "${id}" in this run (jobs: ${known})`);
  }
  return status;
}

function tail(args: Record<string, unknown>): number {
  return typeof args.tail_bytes === "number" ? args.tail_bytes : DEFAULT_TAIL_BYTES;
}

/**
 * Polling a job counts towards a stall only while this is unchanged (issue 14, case 5): its
 * state, exit code and output sizes, not its runtime.
 */
function sameness(job: JobStatus): string {
  return `${job.id} ${job.state} ${job.exitCode} ${job.stdoutBytes} ${job.stderrBytes}`;
}

function line(job: JobStatus): string {
  const state = job.state === "running" ? "running" : `${job.state}, exit code ${job.exitCode}`;
  const command = job.command.length > 120 ? `${job.command.slice(0, 119)}…` : job.command;
  return `${job.id} · ${state} · ${
    (job.runtimeMs / 1000).toFixed(1)
  } s · stdout ${job.stdoutBytes} B, stderr ${job.stderrBytes} B${
    job.detached ? " · detached" : ""
  } · ${JSON.stringify(command)}`;
}

function streams(jobs: BackgroundJobs, id: string, maxBytes: number): string {
  const { stdout, stderr } = jobs.output(id, maxBytes);
  const part = (label: string, s: { text: string; omittedBytes: number }) =>
    s.text === "" && s.omittedBytes === 0
      ? ""
      : `${label}${
        s.omittedBytes > 0 ? ` (newest bytes; ${s.omittedBytes} earlier bytes not shown)` : ""
      }:\n${s.text}${s.text.endsWith("\n") ? "" : "\n"}`;
  return part("stdout", stdout) + part("stderr", stderr) || "(no output yet)\n";
}
