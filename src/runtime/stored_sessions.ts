/**
 * What the runtime does with sessions that no host has open: find the sessions of a workspace,
 * list a session's turns, and rewind one (a surface without a model or a sandbox, such as
 * `odek undo`, needs no API key and starts nothing).
 *
 * @module
 */
import { lazyModule } from "../_util/lazy_module.ts";
import { WorkspaceGuard } from "../broker/workspace_guard.ts";
import { join } from "node:path";
import type { GitCheckpointStore } from "../checkpoint/git_checkpoint_store.ts";
import type { SessionSummary } from "../session/session_store.ts";
import { resolveWorkspace, type Settings } from "./compose.ts";
import {
  listTurns,
  type RewindOutcome,
  type RewindRequest,
  rewindSession,
  type Turn,
} from "./rewind_session.ts";

/**
 * The sessions of one workspace and the others.
 *
 * @example The newest session here
 * ```ts
 * import type { WorkspaceSessions } from "./stored_sessions.ts";
 * const sessions: WorkspaceSessions = { workspace: "/srv/ws", here: [], elsewhere: [] };
 * if (sessions.here[0] !== undefined) throw new Error("none here");
 * ```
 */
export interface WorkspaceSessions {
  /** The workspace compared (a real path). */
  workspace: string;
  /** Its sessions, newest first. */
  here: SessionSummary[];
  /** Every other session, newest first. */
  elsewhere: SessionSummary[];
}

/**
 * Split the sessions by workspace: those recorded with `workspace` (its real path) and the
 * others.
 */
export async function findWorkspaceSessions(
  settings: Settings,
  workspace: string,
): Promise<WorkspaceSessions> {
  const real = await Deno.realPath(workspace).catch(() => workspace);
  const all = await settings.store.list();
  return {
    workspace: real,
    here: all.filter((s) => s.workspace === real),
    elsewhere: all.filter((s) => s.workspace !== real),
  };
}

/** A session's turns (read without a lock; nothing is written). */
export async function storedSessionTurns(settings: Settings, id: string): Promise<Turn[]> {
  const { transcript, checkpoints } = await settings.store.read(id);
  return listTurns(transcript, checkpoints);
}

/** Options for {@linkcode rewindStoredSession}. */
export interface RewindStoredOptions {
  /** The runtime's directory (a relative `workspace` is resolved against it). */
  cwd: string | undefined;
  /** Restore into this workspace instead of the recorded one. @default the session's */
  workspace?: string;
}

/**
 * Rewind a session no host has open: lock it, validate its workspace as a run would, and
 * rewind (see {@linkcode rewindSession}).
 *
 * @returns what was done, and the workspace it was done in
 * @throws {OdekError} `SESSION_NOT_FOUND`, `SESSION_LOCKED`, `WORKSPACE_INVALID`, and
 *   `rewindSession`'s errors
 */
export async function rewindStoredSession(
  settings: Settings,
  id: string,
  request: RewindRequest,
  options: RewindStoredOptions,
): Promise<RewindOutcome & { workspace: string }> {
  await using session = await settings.store.open(id);
  const resolved = await resolveWorkspace(
    settings,
    options.workspace ?? session.meta.workspace,
    options.cwd,
  );
  await using store = await openCheckpointStore(settings, resolved.workspace, id);
  const guard = new WorkspaceGuard({ home: settings.paths.home });
  const outcome = await rewindSession(
    session,
    store,
    request,
    CHECKPOINTS_OFF,
    () => guard.facts(resolved.workspace).protectedExtra,
  );
  return { ...outcome, workspace: resolved.workspace };
}

/** Why there is no checkpoint store when the configuration turned checkpoints off. */
export const CHECKPOINTS_OFF = "checkpoints are off in the configuration (checkpoints.enabled)";

/**
 * The checkpoint store of a session's workspace (`ODEK_HOME/checkpoints`), with the
 * configuration's caps; `undefined` when `checkpoints.enabled` is false.
 */
export async function openCheckpointStore(
  settings: Settings,
  workspace: string,
  sessionId: string,
): Promise<GitCheckpointStore | undefined> {
  const { checkpoints } = settings.config;
  if (!checkpoints.enabled) return undefined;
  // Lazy (src/_util/lazy_module.ts): the store (a git object writer, zlib, ignore rules) loads only when a session opens
  // with checkpoints on, not with every command.
  const { GitCheckpointStore }: typeof import("../checkpoint/git_checkpoint_store.ts") =
    await lazyModule("checkpoint/git_checkpoint_store.ts");
  return await GitCheckpointStore.open({
    dir: join(settings.paths.odekHome, "checkpoints"),
    workspace,
    sessionId,
    limits: {
      maxFiles: checkpoints.maxFiles,
      maxBytes: checkpoints.maxMiB * 1024 * 1024,
      maxFileBytes: checkpoints.maxFileMiB * 1024 * 1024,
    },
  });
}
