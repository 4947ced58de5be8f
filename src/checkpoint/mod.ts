/**
 * Checkpoints of a workspace's files (design §5): the {@linkcode CheckpointStore} seam and its
 * default, the shadow repository {@linkcode GitCheckpointStore}.
 *
 * @module
 */
export type {
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
export {
  DEFAULT_CHECKPOINT_LIMITS,
  GitCheckpointStore,
  type GitCheckpointStoreOptions,
} from "./git_checkpoint_store.ts";
export {
  isProtectedWorkspacePath,
  PROTECTED_WORKSPACE_NAMES,
} from "./protected_workspace_paths.ts";
