/**
 * The checkpoint seam (design §5): snapshots of a workspace's files, taken before and after each
 * step that can write it, that undo and rewind restore. The default is
 * {@linkcode GitCheckpointStore}, a shadow repository under `ODEK_HOME/checkpoints`, never inside
 * the workspace; a durable engine can commit the same checkpoints elsewhere through this
 * interface.
 *
 * @module
 */

/** What a checkpoint is taken for. */
export interface CheckpointStep {
  /** Before or after the step (a rewind records one before and one after its restore). */
  phase: "before" | "after";
  /** What the step is, for people: e.g. `before shell (call_3)`. */
  label: string;
  /** The tool calls of the step. @default none */
  callIds?: readonly string[];
}

/**
 * A path a checkpoint did not record, with what it looked like then.
 *
 * @example A path too large to record
 * ```ts
 * import type { UnrecordedPath } from "./checkpoint_store.ts";
 * const path: UnrecordedPath = { path: "data/dump.bin", reason: "too_large", kind: "file", size: 40_000_000 };
 * if (path.reason !== "too_large") throw new Error("reason");
 * ```
 */
export interface UnrecordedPath {
  /** Relative to the workspace, `/`-separated. */
  path: string;
  /** `ignored` by `.gitignore`; `too_large` for the per-file cap; `special` (socket, device, FIFO); `unreadable` (refused by the open-then-verify check, or gone). */
  reason: "ignored" | "too_large" | "special" | "unreadable";
  /** What it was. */
  kind: "file" | "directory" | "symlink" | "other";
  /** Bytes (files). */
  size?: number;
  /** Modification time in ms since the epoch (a directory's changes when its entries do). */
  mtimeMs?: number;
}

/** One checkpoint. */
export interface Checkpoint {
  /** Its id (40 hex digits: the shadow repository's commit). */
  id: string;
  /** ISO 8601 time it was taken. */
  at: string;
  /** Before or after its step. */
  phase: CheckpointStep["phase"];
  /** What it was taken for. */
  label: string;
  /** The tool calls of its step. */
  callIds: readonly string[];
  /** Paths recorded. */
  files: number;
  /** Bytes of the paths recorded. */
  bytes: number;
}

/**
 * How one path differs between two checkpoints (or a checkpoint and the workspace now), e.g. in
 * what `host.changes()` returns.
 *
 * @example A file a session edited
 * ```ts
 * import type { FileChange } from "./checkpoint_store.ts";
 * const change: FileChange = { path: "src/app.ts", change: "modified", added: 3, removed: 1, binary: false };
 * if (change.added - change.removed !== 2) throw new Error("count");
 * ```
 */
export interface FileChange {
  /** Relative to the workspace, `/`-separated. */
  path: string;
  /** Whether the path was added, modified (content, mode) or deleted. */
  change: "added" | "modified" | "deleted";
  /** Lines added (0 for a binary file, or one too large to count). */
  added: number;
  /** Lines removed (likewise). */
  removed: number;
  /** Not text (a NUL byte or invalid UTF-8 in its first 8 KiB), or over 1 MiB: not counted. */
  binary: boolean;
  /** The unified diff of a text file (when asked for; at most `maxDiffLines` lines, cut with a marker). */
  diff?: string;
}

/**
 * Options for {@linkcode CheckpointStore.diff} and `host.changes()`.
 *
 * @example Diffs of at most 200 lines each
 * ```ts
 * import type { DiffOptions } from "./checkpoint_store.ts";
 * const options: DiffOptions = { withDiff: true, maxDiffLines: 200 };
 * if (!options.withDiff) throw new Error("diff");
 * ```
 */
export interface DiffOptions {
  /** Add each text file's unified diff. @default false */
  withDiff?: boolean;
  /** Lines of each diff shown at most (the rest is counted in a last line). @default 40 */
  maxDiffLines?: number;
}

/** Options for {@linkcode CheckpointStore.restore}. */
export interface RestoreOptions {
  /** Paths (files) left as they are, even when they differ. @default none */
  keep?: readonly string[];
  /**
   * Places the workspace's repositories make protected besides the fixed names (a
   * `core.hooksPath` inside the workspace, included configuration): never written or deleted,
   * like `.git/hooks`. @default none
   */
  protectedExtra?: readonly string[];
}

/**
 * What {@linkcode CheckpointStore.restore} did.
 *
 * @example Count what a restore changed
 * ```ts
 * import type { RestoreResult } from "./checkpoint_store.ts";
 * const result: RestoreResult = {
 *   checkpoint: "b".repeat(40),
 *   written: ["src/app.ts"],
 *   deleted: ["src/new.ts"],
 *   protected: [],
 *   skipped: [],
 *   notRestorable: [],
 * };
 * if (result.written.length + result.deleted.length !== 2) throw new Error("count");
 * ```
 */
export interface RestoreResult {
  /** The checkpoint restored. */
  checkpoint: string;
  /** Paths written back (created or replaced). */
  written: string[];
  /** Paths deleted (they did not exist at the checkpoint). */
  deleted: string[];
  /** Paths that differ but are never written by a restore (`.envrc`, `.vscode/`, …): kept as they are. */
  protected: string[];
  /** Paths that differ but were not restored, each with the reason (e.g. ignored now, in the way). */
  skipped: { path: string; reason: string }[];
  /** Paths the checkpoint did not record (ignored, too large) that changed since: not restorable. */
  notRestorable: {
    path: string;
    change: "added" | "deleted" | "changed";
    reason: UnrecordedPath["reason"];
  }[];
}

/** Size caps of a checkpoint (files that `.gitignore` excludes never count). */
export interface CheckpointLimits {
  /** Files (and symlinks) recorded at most; more fails the checkpoint. */
  maxFiles: number;
  /** Bytes recorded at most; more fails the checkpoint. */
  maxBytes: number;
  /** A larger single file is not recorded (listed as `too_large`). */
  maxFileBytes: number;
}

/**
 * Checkpoints of one session's workspace.
 *
 * Errors (all `OdekError`): `CHECKPOINT_UNAVAILABLE` when the workspace exceeds the limits or a
 * checkpoint id is unknown.
 *
 * @example Record, change, restore (a store from `GitCheckpointStore.open`)
 * ```ts ignore
 * const before = await store.record({ phase: "before", label: "before shell" });
 * await Deno.remove(`${workspace}/notes.txt`);
 * const changes = await store.diff(before.id); // [{ path: "notes.txt", change: "deleted", … }]
 * await store.restore(before.id);              // notes.txt is back, byte for byte
 * ```
 */
export interface CheckpointStore {
  /**
   * Snapshot the workspace now. When nothing changed since the newest checkpoint, that one is
   * returned and nothing is written.
   */
  record(step: CheckpointStep): Promise<Checkpoint>;
  /** This session's checkpoints, oldest first. */
  list(): Promise<Checkpoint[]>;
  /** How `b` (default: the workspace as it is now) differs from checkpoint `a`, by path. */
  diff(a: string, b?: string, options?: DiffOptions): Promise<FileChange[]>;
  /**
   * Make the workspace's files what they were at checkpoint `id`: changed and deleted files are
   * written back, files created since are deleted. With `paths`, only those paths (files, or
   * directories and everything under them). Ignored paths are never touched, protected
   * in-workspace files (`.git/`, `.envrc`, editor settings, odek's project config) never written.
   * `options.keep` names paths to leave as they are (e.g. files the operator changed and keeps).
   */
  restore(id: string, paths?: readonly string[], options?: RestoreOptions): Promise<RestoreResult>;
}
