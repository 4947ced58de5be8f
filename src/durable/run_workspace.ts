/**
 * A queued run's workspace from a git repository (docs/scale_out.md, "Workspaces from a git
 * repository"): the worker fetches the base ref into a bare repository of its own in a scratch
 * folder, writes the base commit's files (or, on a takeover or continuation, the run branch's last
 * checkpoint) into an empty workspace next to it, and after each completed step that changed files
 * records a checkpoint through the daily-driver {@linkcode CheckpointStore} and pushes it as a
 * commit on the run branch. Every git here is the broker's (`runGit`: system and global config,
 * hooks and attributes off); the operator's credential helper goes to the fetches and pushes only.
 *
 * A checkpoint commit is a pure function of its tree, its parent, its label and its checkpoint's
 * time, so pushing one twice (a retry after a lost answer, a replay) sends the same commit id: the
 * remote answers "up to date" and nothing changes. Pushes are never forced: a branch that moved
 * under the run (another worker still pushing) fails the push instead of losing commits.
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import {
  isLocalRemote,
  LOCAL_RECEIVE_PACK,
  runGit,
  type RunGitOptions,
} from "../broker/run_git.ts";
import { GitCheckpointStore } from "../checkpoint/git_checkpoint_store.ts";
import { materializeTree } from "./_materialize_tree.ts";
import { type RunScratch, runScratch } from "./_run_scratch.ts";
import type { QueuedRunGit, QueuedRunGitResult } from "./queued_run.ts";

/** Options of {@linkcode RunWorkspace.create}. */
export interface RunWorkspaceOptions {
  /** The run's repository, ref, branch and remote (the branch already defaulted). */
  git: QueuedRunGit & { branch: string };
  /**
   * The folder the run's scratch folder (named after the run) is made in: the same path on every
   * worker (created 0700; it must be this user's). @default `<temp folder>/odek-runs`
   */
  scratchRoot?: string;
  /** The session (names the checkpoint ref of the store). */
  sessionId: string;
  /** The run (named in each checkpoint commit). */
  runId: string;
  /** The operator's credential helper, for fetch and push only. @default none */
  credentialHelper?: string;
  /** Told what happened (fetched, restored, pushed). @default nothing */
  log?: (line: string) => void;
  /** The clock of checkpoint times (and so of commit dates). @default `() => new Date()` */
  now?: () => Date;
}

/** The largest diff kept in a result, in bytes. */
const MAX_DIFF_BYTES = 256 * 1024;
const decoder = new TextDecoder();

/**
 * One run's scratch workspace and its run branch. Dispose it to close the checkpoint store and
 * delete the scratch folder.
 *
 * @example A run on a local bare repository (needs git)
 * ```ts ignore
 * await using ws = await RunWorkspace.create({ git: { repository: "/srv/git/app.git", ref: "main", branch: "odek/run/r1" }, sessionId: "s1", runId: "r1" });
 * await ws.checkout(await ws.resolveBase());
 * await Deno.writeTextFile(`${ws.workspace}/out.txt`, "hi\n");
 * await ws.checkpoint("after shell (c1)", ["c1"]);
 * console.log((await ws.result()).diff);
 * ```
 */
export class RunWorkspace implements AsyncDisposable {
  /** The workspace the run's session uses (empty until {@linkcode RunWorkspace.checkout}). */
  readonly workspace: string;
  readonly #scratch: RunScratch;
  readonly #gitdir: string;
  readonly #options: RunWorkspaceOptions;
  readonly #remote: string;
  #store: GitCheckpointStore | undefined;
  #base: string | undefined;
  #head: string | undefined;
  #headTree: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(scratch: RunScratch, options: RunWorkspaceOptions) {
    this.#scratch = scratch;
    this.#gitdir = join(scratch.path, "repo.git");
    this.workspace = join(scratch.path, "workspace");
    this.#options = options;
    this.#remote = options.git.remote ?? options.git.repository;
  }

  /**
   * Make the scratch folder (0700) with an empty workspace and odek's bare repository. Another
   * execution of the same run on this machine holds the folder until it ends: this waits for it
   * (and says so in the log) before emptying the folder.
   *
   * @throws {OdekError} `GIT_FAILED` when git cannot create the repository (not installed)
   */
  static async create(options: RunWorkspaceOptions): Promise<RunWorkspace> {
    const scratch = await runScratch(options.scratchRoot, options.runId, options.log);
    const ws = new RunWorkspace(scratch, options);
    try {
      await Deno.mkdir(ws.workspace, { mode: 0o700 });
      await Deno.mkdir(ws.#gitdir, { mode: 0o700 });
      await ws.#git(["init", "--bare", "--quiet", ws.#gitdir], "create odek's repository");
    } catch (error) {
      await scratch.release();
      throw error;
    }
    return ws;
  }

  /** The run branch. */
  get branch(): string {
    return this.#options.git.branch;
  }

  /**
   * The commit the base ref names now (run it once per run, as a durable step: a takeover must
   * diff against the same base even when the ref moved since).
   *
   * @returns 40 hex digits
   * @throws {OdekError} `GIT_FAILED` when the repository cannot be read or has no such ref
   */
  async resolveBase(): Promise<string> {
    const { repository, ref } = this.#options.git;
    if (/^[0-9a-f]{40}$/.test(ref)) return ref;
    const listed = await this.#git(["ls-remote", "--", repository], `list ${repository}`, true);
    const refs = new Map<string, string>();
    for (const line of decoder.decode(listed).split("\n")) {
      const [oid, name] = line.split("\t");
      if (oid && name) refs.set(name, oid);
    }
    const names = ref.startsWith("refs/") || ref === "HEAD"
      ? [`${ref}^{}`, ref]
      : [`refs/heads/${ref}`, `refs/tags/${ref}^{}`, `refs/tags/${ref}`];
    const found = names.map((name) => refs.get(name)).find((oid) => oid !== undefined);
    if (!found) {
      throw new OdekError(
        "GIT_FAILED",
        `The repository ${repository} has no branch or tag ${ref}: name one it has (git ls-remote ${repository}).`,
      );
    }
    return found;
  }

  /**
   * Fill the workspace: from the run branch's last checkpoint when the branch exists (a takeover
   * or a continuation), else from `base`, and then create the branch at `base`.
   *
   * @param base the base commit ({@linkcode RunWorkspace.resolveBase})
   * @returns the commit the workspace holds
   * @throws {OdekError} `GIT_FAILED` when a fetch, the push or the checkout fails
   */
  async checkout(base: string): Promise<string> {
    this.#base = base;
    const branchRef = `refs/heads/${this.branch}`;
    const listed = await this.#git(
      ["ls-remote", "--", this.#remote, branchRef],
      `look for ${this.branch} in ${this.#remote}`,
      true,
    );
    const existing = decoder.decode(listed).split("\t")[0].trim();
    let start: string;
    if (/^[0-9a-f]{40}$/.test(existing)) {
      await this.#fetch(this.#remote, `+${branchRef}:refs/odek/run`);
      start = existing;
      this.#options.log?.(`run ${this.#options.runId}: workspace restored from ${this.branch}`);
    } else {
      start = base;
    }
    if (!(await this.#has(base))) {
      await this.#fetch(this.#options.git.repository, `+${this.#options.git.ref}:refs/odek/base`);
      if (!(await this.#has(base))) {
        throw new OdekError(
          "GIT_FAILED",
          `The base commit ${base} of ${this.#options.git.ref} is no longer in ${this.#options.git.repository}.`,
        );
      }
    }
    if (start === base) await this.#push(base);
    const written = await materializeTree(this.#gitdir, start, this.workspace);
    for (const skip of written.skipped) {
      this.#options.log?.(
        // The path is the repository's: quoted, so a newline or an escape cannot forge a log line.
        `run ${this.#options.runId}: not checked out ${JSON.stringify(skip.path)} (${skip.reason})`,
      );
    }
    this.#store = await GitCheckpointStore.open({
      dir: join(this.#scratch.path, "checkpoints"),
      workspace: this.workspace,
      sessionId: this.#options.sessionId,
      ...(this.#options.now ? { now: this.#options.now } : {}),
    });
    // odek's repository reads the checkpoint store's objects (trees and blobs) where they are.
    await Deno.mkdir(join(this.#gitdir, "objects", "info"), { recursive: true });
    await Deno.writeTextFile(
      join(this.#gitdir, "objects", "info", "alternates"),
      `${join(this.#store.gitdir, "objects")}\n`,
    );
    this.#head = start;
    this.#headTree = await this.#tree(start);
    return start;
  }

  /**
   * Record a checkpoint of the workspace and, when its files differ from the branch's head,
   * commit it on the run branch and push it. Calls run one at a time.
   *
   * @param label what the step was (`after shell (call_1)`)
   * @param callIds the step's tool calls
   * @returns the branch's head after it
   * @throws {OdekError} `CHECKPOINT_UNAVAILABLE` (the workspace is over the caps), `GIT_FAILED`
   *   (the push failed three times)
   */
  checkpoint(label: string, callIds: readonly string[]): Promise<string> {
    const next = this.#queue.then(() => this.#checkpoint(label, callIds));
    this.#queue = next.catch(() => {});
    return next;
  }

  async #checkpoint(label: string, callIds: readonly string[]): Promise<string> {
    if (!this.#store || !this.#head) throw new OdekError("USAGE", "checkout() comes first.");
    const checkpoint = await this.#store.record({ phase: "after", label, callIds });
    const tree = await this.#tree(checkpoint.id);
    if (tree === this.#headTree) return this.#head;
    const seconds = Math.floor(Date.parse(checkpoint.at) / 1000);
    const who = { name: "odek", email: "odek@localhost", date: `@${seconds} +0000` };
    const message = [
      `odek checkpoint: ${label}`,
      "",
      `Odek-Run: ${this.#options.runId}`,
      `Odek-Session: ${this.#options.sessionId}`,
      ...(callIds.length ? [`Odek-Calls: ${callIds.join(" ")}`] : []),
      "",
    ].join("\n");
    const commit = decoder.decode(
      await this.#git(
        ["commit-tree", tree, "-p", this.#head, "-F", "-"],
        "commit a checkpoint",
        false,
        {
          input: new TextEncoder().encode(message),
          env: {
            GIT_AUTHOR_NAME: who.name,
            GIT_AUTHOR_EMAIL: who.email,
            GIT_AUTHOR_DATE: who.date,
            GIT_COMMITTER_NAME: who.name,
            GIT_COMMITTER_EMAIL: who.email,
            GIT_COMMITTER_DATE: who.date,
          },
        },
      ),
    ).trim();
    await this.#push(commit);
    this.#head = commit;
    this.#headTree = tree;
    this.#options.log?.(
      `run ${this.#options.runId}: checkpoint ${commit.slice(0, 12)} on ${this.branch}`,
    );
    return commit;
  }

  /**
   * The run's branch, base, head and diff (against the base).
   *
   * @throws {OdekError} `GIT_FAILED` when git cannot diff
   */
  async result(): Promise<QueuedRunGitResult> {
    await this.#queue;
    const base = this.#base!;
    const head = this.#head ?? base;
    const flags = ["--no-ext-diff", "--no-textconv", "--no-color", "--no-renames"];
    const names = decoder.decode(
      await this.#git(["diff", ...flags, "--name-status", "-z", base, head], "list the changes"),
    ).split("\0");
    const files: QueuedRunGitResult["files"] = [];
    for (let i = 0; i + 1 < names.length; i += 2) {
      const status = names[i];
      files.push({
        path: names[i + 1],
        change: status === "A"
          ? "added"
          : status === "M"
          ? "modified"
          : status === "D"
          ? "deleted"
          : "other",
      });
    }
    const patch = await this.#git(["diff", ...flags, base, head], "diff the run");
    const count = decoder.decode(
      await this.#git(["rev-list", "--count", `${base}..${head}`], "count the checkpoints"),
    );
    const { repository, ref } = this.#options.git;
    return {
      repository,
      ref,
      branch: this.branch,
      base,
      head,
      checkpoints: Number(count.trim()),
      files,
      diff: decoder.decode(patch.subarray(0, MAX_DIFF_BYTES)),
      diffTruncated: patch.length > MAX_DIFF_BYTES,
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#queue;
    await this.#store?.close().catch(() => {});
    await this.#scratch.release();
  }

  async #push(commit: string): Promise<void> {
    const args = [
      "push",
      "--porcelain",
      // A local repository's receive-pack runs on this machine, without odek's -c settings.
      ...(isLocalRemote(this.#remote) ? [`--receive-pack=${LOCAL_RECEIVE_PACK}`] : []),
      "--",
      this.#remote,
      `${commit}:refs/heads/${this.branch}`,
    ];
    let failure: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await this.#git(args, `push ${this.branch} to ${this.#remote}`, true);
        return;
      } catch (error) {
        failure = error;
        // A rejected push (the branch moved) will not pass on a retry.
        if (/rejected|non-fast-forward|fetch first/.test((error as Error).message)) break;
        if (attempt < 2) await new Promise((resolve) => setTimeout(resolve, 500 * (attempt + 1)));
      }
    }
    throw failure;
  }

  async #fetch(remote: string, refspec: string): Promise<void> {
    await this.#git(
      ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", remote, refspec],
      `fetch ${refspec} from ${remote}`,
      true,
    );
  }

  async #has(commit: string): Promise<boolean> {
    const probe = await runGit({
      gitdir: this.#gitdir,
      args: ["cat-file", "-e", `${commit}^{commit}`],
    });
    return probe.code === 0;
  }

  async #tree(commit: string): Promise<string> {
    return decoder.decode(await this.#git(["rev-parse", `${commit}^{tree}`], "read a tree")).trim();
  }

  /** Run git; a failure throws `GIT_FAILED` saying what odek was doing. */
  async #git(
    args: string[],
    what: string,
    remote = false,
    extra: Pick<RunGitOptions, "input" | "env"> = {},
  ): Promise<Uint8Array> {
    const result = await runGit({
      gitdir: this.#gitdir,
      args,
      ...(remote && this.#options.credentialHelper
        ? { credentialHelper: this.#options.credentialHelper }
        : {}),
      ...extra,
    });
    if (result.code !== 0) {
      throw new OdekError(
        "GIT_FAILED",
        `odek could not ${what} (git ${args[0]} exited ${result.code}): ${
          result.stderr.trim().slice(0, 2000) || "no message"
        }`,
      );
    }
    return result.stdout;
  }
}
