/**
 * What a run start asks for, and the git part of it in queue mode: a new session's workspace as
 * a repository and ref (each run clones it on its worker), checked here so a bad one is a 400, and
 * inherited by the session's next runs (the same branch, from the base commit the first run had).
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { QueuedRunGitSchema } from "../durable/queued_run.ts";
import type { ServeRunRecord } from "./run_records.ts";

/**
 * What a run start asks for (validated by the route).
 *
 * @example A new session on a repository's main branch
 * ```ts
 * import type { RunStart } from "./run_start.ts";
 * const start: RunStart = { task: "fix the test", git: { repository: "/srv/git/app.git", ref: "main" } };
 * if (start.workspace !== undefined) throw new Error("a path or a repository, not both");
 * ```
 */
export interface RunStart {
  /** A new session's task. */
  task?: string;
  /** An existing session (with `message`, or alone to resume it). */
  sessionId?: string;
  /** The message the run appends. */
  message?: string;
  /** A new session's workspace: under one of the allowed roots. @default its own folder */
  workspace?: string;
  /** A new session's workspace as a git repository and ref (`odek serve --queue` only). */
  git?: { repository: string; ref: string; branch?: string };
}

/**
 * A new session's record on a repository, after checking the start.
 *
 * @param record the new record (its workspace names the repository)
 * @param start the start, with `git`
 * @param queued whether serve runs on a queue
 * @returns the record with its `git`
 * @throws {OdekError} `USAGE` without a queue, with a workspace path too, or for a bad repository,
 *   ref or branch
 */
export function gitRecord(
  record: ServeRunRecord,
  start: RunStart,
  queued: boolean,
): ServeRunRecord {
  if (!queued) {
    throw new OdekError(
      "USAGE",
      "A run on a git repository (repository, ref) needs odek serve --queue postgres://…: workers clone the repository; without a queue, name a workspace path.",
    );
  }
  if (start.workspace !== undefined) {
    throw new OdekError("USAGE", "Name a workspace path or a repository and ref, not both.");
  }
  const parsed = QueuedRunGitSchema.safeParse(start.git);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "git"}: ${i.message}`);
    throw new OdekError("USAGE", `Invalid repository or ref: ${problems.join("; ")}.`);
  }
  if (parsed.data.branch?.startsWith("odek/run/")) {
    // Another run's branch would hand this run its workspace and its pushes.
    throw new OdekError(
      "USAGE",
      "Invalid repository or ref: branch: odek/run/… branches are odek's own runs'; leave branch out (odek/run/<run key>) or name another under odek/.",
    );
  }
  return { ...record, git: parsed.data };
}

/**
 * A follow-up run of a session whose first run was on a repository: the same repository and
 * branch, from the base commit that run had (so its diff is against the same base).
 *
 * @param record the follow-up's new record
 * @param known the records serve knows, newest first
 * @returns the record, with `git` when the session has one
 */
export function continuedGit(
  record: ServeRunRecord,
  known: readonly ServeRunRecord[],
): ServeRunRecord {
  const previous = known.find((r) => r.sessionId === record.sessionId && r.git);
  if (!previous?.git) return record;
  const { repository, ref, base } = previous.git;
  const branch = previous.git.branch ?? `odek/run/${previous.key}`;
  return { ...record, workspace: repository, git: { repository, ref: base ?? ref, branch } };
}
