/**
 * What a queued run is: the request `serve` (or any client) puts on the queue, and what a worker
 * returns when the run's workflow ends.
 *
 * @module
 */
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import type { PausedApproval } from "./pausing_approver.ts";

/**
 * A queued run's workspace as a git repository: the worker clones `repository` at `ref` into a
 * scratch workspace and pushes a checkpoint commit to `branch` (in `remote`) after each
 * completed step that changed files (docs/scale_out.md, "Workspaces from a git repository").
 *
 * @example A run on a repository's main branch
 * ```ts
 * import type { QueuedRunGit } from "./queued_run.ts";
 * const git: QueuedRunGit = { repository: "/srv/git/app.git", ref: "main", branch: "odek/run/r1" };
 * if (git.remote !== undefined) throw new Error("pushes to the repository itself");
 * ```
 */
export interface QueuedRunGit {
  /** A URL or a path every worker can reach (`https://…`, `ssh://…`, `/srv/git/app.git`). */
  repository: string;
  /** The base: a branch, a tag, `refs/…`, or a commit's 40 hex digits. */
  ref: string;
  /** The run branch (a continuation of the run keeps it). @default `odek/run/<run id>` */
  branch?: string;
  /** Where the run branch is pushed (and restored from). @default the repository */
  remote?: string;
}

/**
 * A run on the queue. A new session names its `task`; an existing one gets `message` (or
 * nothing: resume what it left pending). Its workspace is a `workspace` path every worker
 * reaches, or a `git` repository and ref.
 *
 * @example A new session's run
 * ```ts
 * import type { QueuedRun } from "./queued_run.ts";
 * const run: QueuedRun = { runId: "r1", sessionId: "s1", task: "fix the test", workspace: "/srv/ws" };
 * if (run.message !== undefined) throw new Error("a new session has a task");
 * ```
 */
export interface QueuedRun {
  /** The run's id: the workflow id (a continuation after an approval: `<run>:<approval id>`). */
  runId: string;
  /** The session the run journals to (in the queue's database). */
  sessionId: string;
  /** A new session's task. */
  task?: string;
  /** The next operator message of an existing session. */
  message?: string;
  /** The workspace: a path every worker reaches (needed unless `git` is set). */
  workspace?: string;
  /** The workspace as a git repository and ref, cloned by the worker. */
  git?: QueuedRunGit;
  /** A continuation's answers to the approval its run paused at. */
  approvals?: { callId: string; approved: boolean; reason?: string }[];
}

/** A git ref name odek accepts: git's rules, without option-like or revision-syntax forms. */
const REF =
  /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\.lock(?:\/|$))[A-Za-z0-9._\/+=-]{1,200}(?<![./])$/;

/** The zod schema of {@linkcode QueuedRunGit}. */
export const QueuedRunGitSchema: z.ZodType<QueuedRunGit> = z.strictObject({
  repository: z.string().min(1).max(2000).refine(
    (value) => !value.startsWith("-") && !/[\0\n\r]/.test(value) && !/::/.test(value),
    "a URL (https://, ssh://, git://, file://) or an absolute path, not an option or an ext:: command",
  ).refine(
    (value) =>
      value.startsWith("/") || /^(https?|ssh|git|file):\/\//.test(value) ||
      /^[\w.-]+@[\w.-]+:/.test(value),
    "a URL (https://, ssh://, git://, file://, user@host:path) or an absolute path",
  ),
  ref: z.string().regex(REF, "a branch, tag, refs/… name or commit id"),
  branch: z.string().regex(REF, "a branch name").refine(
    (value) => value.startsWith("odek/"),
    "a branch under odek/ (checkpoints are never pushed onto a branch of the repository's own)",
  ).optional(),
  remote: z.string().min(1).max(2000).refine(
    (value) => !value.startsWith("-") && !/[\0\n\r]/.test(value) && !/::/.test(value),
    "a URL or an absolute path, not an option or a <transport>:: helper",
  ).refine(
    (value) =>
      value.startsWith("/") || /^(https?|ssh|git|file):\/\//.test(value) ||
      /^[\w.-]+@[\w.-]+:/.test(value),
    "a URL (https://, ssh://, git://, file://, user@host:path) or an absolute path",
  ).optional(),
}).refine(
  (git) =>
    git.remote !== undefined || git.branch === undefined ||
    ![git.ref, `refs/heads/${git.ref}`].includes(git.branch) &&
      git.ref !== `refs/heads/${git.branch}`,
  {
    message:
      "the run branch must not be the base ref: checkpoints would be pushed onto it; leave branch out (odek/run/<run id>) or name another",
    path: ["branch"],
  },
);

/** The zod schema of {@linkcode QueuedRun} (the edge where a request comes off the queue). */
export const QueuedRunSchema: z.ZodType<QueuedRun> = z.object({
  runId: z.string().min(1).max(200),
  sessionId: z.string().min(1).max(200),
  task: z.string().max(100_000).optional(),
  message: z.string().max(100_000).optional(),
  workspace: z.string().startsWith("/").optional(),
  git: QueuedRunGitSchema.optional(),
  approvals: z.array(z.object({
    callId: z.string().min(1),
    approved: z.boolean(),
    reason: z.string().max(2000).optional(),
  })).max(256).optional(),
}).refine((run) => run.workspace !== undefined || run.git !== undefined, {
  message: "a queued run needs a workspace path or a git repository and ref",
}).transform((run) =>
  run.git && run.git.branch === undefined
    ? { ...run, git: { ...run.git, branch: `odek/run/${run.runId}` } }
    : run
);

/**
 * How a queued run ended.
 *
 * @example
 * ```ts
 * import type { QueuedRunResult } from "./queued_run.ts";
 * const result: QueuedRunResult = { runId: "r1", sessionId: "s1", outcome: "completed", text: "done", workerId: "w1" };
 * if (result.outcome !== "completed") throw new Error(result.outcome);
 * ```
 */
export interface QueuedRunResult {
  /** The run's id. */
  runId: string;
  /** Its session. */
  sessionId: string;
  /**
   * The run's outcome type (`completed`, `budget_exceeded`, `stalled`, `interrupted`, `failed`),
   * or `awaiting_approval`: the run paused at `approval` and its workflow ended.
   */
  outcome: string;
  /** The approval a run paused at. */
  approval?: PausedApproval;
  /** The final answer (completed) or the error's message. */
  text: string;
  /** The worker that finished it. */
  workerId: string;
  /** A git run's branch and diff. */
  git?: QueuedRunGitResult;
  /**
   * The session host's and the run's warnings on the worker (no bwrap, no egress proxy, a project
   * key ignored, …), as the terminal would print them. Absent when there are none.
   */
  warnings?: string[];
}

/**
 * What a git run left in its repository.
 *
 * @example
 * ```ts
 * import type { QueuedRunGitResult } from "./queued_run.ts";
 * const git: QueuedRunGitResult = {
 *   repository: "/srv/git/app.git", ref: "main", branch: "odek/run/r1",
 *   base: "a".repeat(40), head: "b".repeat(40), checkpoints: 1,
 *   files: [{ path: "out.txt", change: "added" }], diff: "diff --git a/out.txt b/out.txt\n…", diffTruncated: false,
 * };
 * if (git.head === git.base) throw new Error("changed nothing");
 * ```
 */
export interface QueuedRunGitResult {
  /** The repository cloned. */
  repository: string;
  /** The base ref as asked for. */
  ref: string;
  /** The run branch (in the repository, or in `remote` when one was given). */
  branch: string;
  /** The commit `ref` named when the run started (40 hex digits). */
  base: string;
  /** The run branch's last checkpoint commit (`base` when nothing changed). */
  head: string;
  /** Checkpoint commits on the branch since `base`. */
  checkpoints: number;
  /** Paths that differ between `base` and `head`. */
  files: { path: string; change: "added" | "modified" | "deleted" | "other" }[];
  /** `git diff base head` (unified, binary files named, not shown), cut at 256 KiB. */
  diff: string;
  /** Whether `diff` was cut. */
  diffTruncated: boolean;
}

const QueuedRunGitResultSchema: z.ZodType<QueuedRunGitResult> = z.object({
  repository: z.string(),
  ref: z.string(),
  branch: z.string(),
  base: z.string(),
  head: z.string(),
  checkpoints: z.number().int().min(0),
  files: z.array(z.object({
    path: z.string(),
    change: z.enum(["added", "modified", "deleted", "other"]),
  })),
  diff: z.string(),
  diffTruncated: z.boolean(),
});

const PausedApprovalSchema: z.ZodType<PausedApproval> = z.object({
  id: z.string().min(1),
  calls: z.array(z.object({
    callId: z.string(),
    toolName: z.string(),
    args: z.record(z.string(), z.unknown()),
    reason: z.string(),
    riskClasses: z.array(z.string()).optional(),
    preview: z.string().optional(),
  })),
});

/** The zod schema of {@linkcode QueuedRunResult} (the edge where a result comes off the queue). */
export const QueuedRunResultSchema: z.ZodType<QueuedRunResult> = z.object({
  runId: z.string().min(1),
  sessionId: z.string().min(1),
  outcome: z.string().min(1),
  approval: PausedApprovalSchema.optional(),
  text: z.string(),
  workerId: z.string(),
  git: QueuedRunGitResultSchema.optional(),
  warnings: z.array(z.string()).optional(),
});

/**
 * A run's result as the queue gave it back (its row, or its workflow's return value), checked.
 *
 * @param value what the queue returned
 * @param runId the run it belongs to (for the error)
 * @returns the result
 * @throws {OdekError} `QUEUE_RESULT_INVALID` when it is not a run's result (a row written by
 *   something else than an odek worker, or by another version of one)
 *
 * @example
 * ```ts
 * import { queuedRunResult } from "./queued_run.ts";
 * const result = queuedRunResult({ runId: "r1", sessionId: "s1", outcome: "completed", text: "ok", workerId: "w1" }, "r1");
 * if (result.text !== "ok") throw new Error(result.text);
 * ```
 */
export function queuedRunResult(value: unknown, runId: string): QueuedRunResult {
  const parsed = QueuedRunResultSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new OdekError(
    "QUEUE_RESULT_INVALID",
    `The queue holds a result for run ${runId} that is not an odek run's result (${
      z.prettifyError(parsed.error).split("\n").join(" ")
    }): check that every worker on this queue runs the same odek version as this one`,
  );
}
