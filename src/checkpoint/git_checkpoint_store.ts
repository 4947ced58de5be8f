/**
 * The default {@linkcode CheckpointStore}: a shadow repository per workspace under
 * `ODEK_HOME/checkpoints/<workspace key>.git`, in git's object format, one commit per checkpoint
 * on the ref `refs/odek/<session id>`. It runs no program and reads no git config, hook or
 * attribute of the workspace (design §8.7), so a `.gitattributes` filter driver or a hook in the
 * workspace can never run; it never writes inside the workspace except when restoring.
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import type {
  Checkpoint,
  CheckpointLimits,
  CheckpointStep,
  CheckpointStore,
  DiffOptions,
  FileChange,
  RestoreOptions,
  RestoreResult,
  UnrecordedPath,
} from "./checkpoint_store.ts";
import { compareFiles } from "./_file_changes.ts";
import {
  decodeCommit,
  encodeCommit,
  initRepository,
  readObject,
  readRef,
  writeObject,
  writeRef,
} from "./_git_objects.ts";
import { applyRestore, planRestore } from "./_restore_files.ts";
import { type Snapshot, type SnapshotFile, snapshotWorkspace } from "./_snapshot_workspace.ts";
import { loadStatCache, saveStatCache } from "./_stat_cache_file.ts";
import { readTreeFiles, type TreeMemo, writeTreeFiles } from "./_tree_files.ts";
import { shadowGitdir } from "./shadow_gitdir.ts";

/** The default caps: 20 000 files, 512 MiB, 16 MiB per file. */
export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  maxFiles: 20_000,
  maxBytes: 512 * 1024 * 1024,
  maxFileBytes: 16 * 1024 * 1024,
};

/** Options for {@linkcode GitCheckpointStore.open}. */
export interface GitCheckpointStoreOptions {
  /** Where the shadow repositories live (`ODEK_HOME/checkpoints`; created 0700). */
  dir: string;
  /** The workspace (validated real path). */
  workspace: string;
  /** The session whose checkpoints these are (its ref). */
  sessionId: string;
  /** The size caps. @default {@linkcode DEFAULT_CHECKPOINT_LIMITS} */
  limits?: CheckpointLimits;
  /** The clock of checkpoint times. @default `() => new Date()` */
  now?: () => Date;
}

/** What a commit message of the shadow repository holds. */
interface CommitFacts {
  v: 1;
  phase: CheckpointStep["phase"];
  label: string;
  callIds: string[];
  at: string;
  files: number;
  bytes: number;
  /** The blob of {@linkcode SnapshotMeta}. */
  meta: string;
}

/** Per checkpoint, what a tree cannot hold. */
interface SnapshotMeta {
  v: 1;
  unrecorded: UnrecordedPath[];
  unrecordedTruncated: boolean;
  /** Permission bits of the files whose bits are not the default of their mode. */
  perms: Record<string, number>;
}

/** A checkpoint's files and what it did not record. */
interface Loaded {
  files: Map<string, SnapshotFile>;
  unrecorded: UnrecordedPath[];
}

/**
 * Checkpoints of one session's workspace in a shadow repository. Operations run one at a time.
 *
 * @example Record and restore
 * ```ts
 * import { GitCheckpointStore } from "./git_checkpoint_store.ts";
 * const root = await Deno.realPath(await Deno.makeTempDir());
 * await Deno.mkdir(`${root}/ws`);
 * await Deno.writeTextFile(`${root}/ws/a.txt`, "one\n");
 * await using store = await GitCheckpointStore.open({ dir: `${root}/cp`, workspace: `${root}/ws`, sessionId: "s1" });
 * const first = await store.record({ phase: "before", label: "before shell" });
 * await Deno.remove(`${root}/ws/a.txt`);
 * const [change] = await store.diff(first.id);
 * if (change.change !== "deleted") throw new Error(change.change);
 * await store.restore(first.id);
 * if (await Deno.readTextFile(`${root}/ws/a.txt`) !== "one\n") throw new Error("not restored");
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export class GitCheckpointStore implements CheckpointStore, AsyncDisposable {
  /** The shadow repository (a bare git directory). */
  readonly gitdir: string;
  readonly #workspace: string;
  readonly #ref: string;
  readonly #limits: CheckpointLimits;
  readonly #now: () => Date;
  readonly #cache: ReturnType<typeof loadStatCache>;
  readonly #known = new Set<string>();
  readonly #trees: TreeMemo = new Map();
  readonly #loaded = new Map<string, Loaded>();
  #queue: Promise<unknown> = Promise.resolve();
  #cacheSaved = false;

  private constructor(options: GitCheckpointStoreOptions, gitdir: string) {
    this.gitdir = gitdir;
    this.#workspace = options.workspace;
    this.#ref = `refs/odek/${options.sessionId}`;
    this.#limits = options.limits ?? DEFAULT_CHECKPOINT_LIMITS;
    this.#now = options.now ?? (() => new Date());
    this.#cache = loadStatCache(gitdir, options.workspace);
  }

  /**
   * Open (creating it when needed) the shadow repository of `options.workspace`.
   *
   * @throws the file system's error when `options.dir` cannot be created
   */
  static open(options: GitCheckpointStoreOptions): Promise<GitCheckpointStore> {
    return new Promise((resolve) => {
      Deno.mkdirSync(options.dir, { recursive: true, mode: 0o700 });
      const gitdir = shadowGitdir(options.dir, options.workspace);
      initRepository(gitdir);
      try {
        Deno.writeTextFileSync(join(gitdir, "odek-workspace"), `${options.workspace}\n`, {
          createNew: true,
          mode: 0o600,
        });
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
      resolve(new GitCheckpointStore(options, gitdir));
    });
  }

  /** The newest checkpoint's id, if any. */
  head(): string | undefined {
    return readRef(this.gitdir, this.#ref);
  }

  record(step: CheckpointStep): Promise<Checkpoint> {
    return this.#serial(async () => {
      const snapshot = await this.#snapshot();
      const head = this.head();
      const last = head ? this.#loaded.get(head) : undefined;
      // Nothing changed since the newest checkpoint (the usual case before a step): no trees to build.
      if (head && last && sameFiles(last, snapshot)) return this.#commit(head).checkpoint;
      const tree = writeTreeFiles(this.gitdir, snapshot.files, this.#known, this.#trees);
      const meta = writeObject(
        this.gitdir,
        "blob",
        new TextEncoder().encode(JSON.stringify(metaOf(snapshot))),
      );
      if (head) {
        const previous = this.#commit(head);
        if (previous.tree === tree && previous.facts.meta === meta) return previous.checkpoint;
      }
      const at = this.#now();
      const facts: CommitFacts = {
        v: 1,
        phase: step.phase,
        label: step.label,
        callIds: [...(step.callIds ?? [])],
        at: at.toISOString(),
        files: snapshot.files.size,
        bytes: snapshot.bytes,
        meta,
      };
      const body = encodeCommit({
        tree,
        parents: head ? [head] : [],
        time: at.getTime() / 1000,
        message: JSON.stringify(facts),
      });
      const id = writeObject(this.gitdir, "commit", body);
      writeRef(this.gitdir, this.#ref, id);
      this.#remember(id, { files: snapshot.files, unrecorded: snapshot.unrecorded });
      if (!this.#cacheSaved) this.#saveCache();
      return checkpointOf(id, facts);
    });
  }

  list(): Promise<Checkpoint[]> {
    return this.#serial(() => {
      const out: Checkpoint[] = [];
      for (let id = this.head(); id !== undefined && out.length < 100_000;) {
        const { checkpoint, parents } = this.#commit(id);
        out.push(checkpoint);
        id = parents[0];
      }
      return Promise.resolve(out.reverse());
    });
  }

  diff(a: string, b?: string, options: DiffOptions = {}): Promise<FileChange[]> {
    return this.#serial(async () => {
      const from = this.#load(a).files;
      const to = b === undefined ? (await this.#snapshot()).files : this.#load(b).files;
      return compareFiles(from, to, (oid) => readObject(this.gitdir, oid, "blob"), options);
    });
  }

  restore(
    id: string,
    paths?: readonly string[],
    options: RestoreOptions = {},
  ): Promise<RestoreResult> {
    return this.#serial(async () => {
      const target = this.#load(id);
      const current = await this.#snapshot();
      const plan = planRestore(
        target.files,
        current.files,
        paths,
        options.keep,
        options.protectedExtra,
      );
      const applied = applyRestore(
        this.#workspace,
        plan,
        target.files,
        current.files,
        (oid) => readObject(this.gitdir, oid, "blob"),
      );
      return {
        checkpoint: id,
        ...applied,
        notRestorable: unrecordedChanges(target.unrecorded, current, paths),
      };
    });
  }

  /** Save the stat cache (so the next process need not read unchanged files again). */
  close(): Promise<void> {
    return this.#serial(() => Promise.resolve(this.#saveCache()));
  }

  /** {@linkcode GitCheckpointStore.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #saveCache(): void {
    try {
      saveStatCache(this.gitdir, this.#workspace, this.#cache);
      this.#cacheSaved = true;
    } catch {
      // A cache: the next pass reads the files again.
    }
  }

  #snapshot(): Promise<Snapshot> {
    return snapshotWorkspace(this.#workspace, this.gitdir, {
      limits: this.#limits,
      cache: this.#cache,
      known: this.#known,
    });
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => {});
    return next;
  }

  #commit(
    id: string,
  ): { checkpoint: Checkpoint; facts: CommitFacts; tree: string; parents: string[] } {
    let commit;
    let facts: CommitFacts;
    try {
      commit = decodeCommit(readObject(this.gitdir, id, "commit"));
      facts = JSON.parse(commit.message) as CommitFacts;
    } catch (error) {
      throw new OdekError(
        "CHECKPOINT_UNAVAILABLE",
        `No checkpoint ${id} in ${this.gitdir} (${
          (error as Error).message
        }): list them with odek rewind.`,
        { cause: error },
      );
    }
    return {
      checkpoint: checkpointOf(id, facts),
      facts,
      tree: commit.tree,
      parents: commit.parents,
    };
  }

  #load(id: string): Loaded {
    const cached = this.#loaded.get(id);
    if (cached) return cached;
    const { facts, tree } = this.#commit(id);
    const meta = JSON.parse(
      new TextDecoder().decode(readObject(this.gitdir, facts.meta, "blob")),
    ) as SnapshotMeta;
    const files = new Map<string, SnapshotFile>();
    for (const [path, file] of readTreeFiles(this.gitdir, tree)) {
      files.set(path, { ...file, size: 0, perm: meta.perms[path] ?? defaultPerm(file.mode) });
    }
    const loaded = { files, unrecorded: meta.unrecorded };
    this.#remember(id, loaded);
    return loaded;
  }

  #remember(id: string, loaded: Loaded): void {
    this.#loaded.set(id, loaded);
    // The newest few are kept in memory (a step diffs its before and after).
    while (this.#loaded.size > 4) this.#loaded.delete(this.#loaded.keys().next().value!);
  }
}

/** Whether a snapshot records exactly what a loaded checkpoint does (files, modes, ignored paths). */
function sameFiles(loaded: Loaded, snapshot: Snapshot): boolean {
  if (loaded.files.size !== snapshot.files.size) return false;
  for (const [path, file] of snapshot.files) {
    const then = loaded.files.get(path);
    if (!then || then.oid !== file.oid || then.mode !== file.mode || then.perm !== file.perm) {
      return false;
    }
  }
  return JSON.stringify(loaded.unrecorded) === JSON.stringify(snapshot.unrecorded);
}

function checkpointOf(id: string, facts: CommitFacts): Checkpoint {
  return {
    id,
    at: facts.at,
    phase: facts.phase,
    label: facts.label,
    callIds: facts.callIds,
    files: facts.files,
    bytes: facts.bytes,
  };
}

function metaOf(snapshot: Snapshot): SnapshotMeta {
  const perms: Record<string, number> = {};
  for (const [path, file] of snapshot.files) {
    if (file.perm !== defaultPerm(file.mode)) perms[path] = file.perm;
  }
  return {
    v: 1,
    unrecorded: snapshot.unrecorded,
    unrecordedTruncated: snapshot.unrecordedTruncated,
    perms,
  };
}

function defaultPerm(mode: SnapshotFile["mode"]): number {
  return mode === "100755" ? 0o755 : mode === "120000" ? 0o777 : 0o644;
}

/** Unrecorded paths (ignored, too large, …) that appeared, went or changed since the checkpoint. */
function unrecordedChanges(
  before: readonly UnrecordedPath[],
  now: Snapshot,
  paths: readonly string[] | undefined,
): RestoreResult["notRestorable"] {
  const selected = (path: string) =>
    !paths || paths.some((p) => path === p || path.startsWith(`${p}/`) || p.startsWith(`${path}/`));
  const key = (u: UnrecordedPath) => `${u.kind}:${u.size ?? ""}:${u.mtimeMs ?? ""}`;
  const then = new Map(before.map((u) => [u.path, u]));
  const current = new Map(now.unrecorded.map((u) => [u.path, u]));
  const out: RestoreResult["notRestorable"] = [];
  for (const [path, u] of then) {
    if (!selected(path)) continue;
    const c = current.get(path);
    if (!c) {
      if (!now.files.has(path)) out.push({ path, change: "deleted", reason: u.reason });
    } else if (key(c) !== key(u)) {
      out.push({ path, change: "changed", reason: u.reason });
    }
  }
  for (const [path, c] of current) {
    if (selected(path) && !then.has(path)) out.push({ path, change: "added", reason: c.reason });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
