/**
 * A queued run's scratch folder (private to `durable/`): `<root>/<first 24 hex digits of the
 * SHA-256 of the run id>`, the same path on every worker and in every execution of the run (the
 * path is in the session's records — its meta, the system prompt — which a takeover's replay writes
 * again and must find identical). The root must be this user's directory, closed to others: the
 * path is predictable.
 *
 * Two executions of one run on one machine (a worker that stalled past its lease, taken over by
 * another worker on the same host) would share that path: each execution holds an exclusive lock
 * on `<root>/<name>.lock` while it uses the folder, and a second one waits for it before it
 * empties the folder.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";

/** A run's scratch folder, held by this execution until released. */
export interface RunScratch {
  /** The folder's real path (empty, 0700). */
  path: string;
  /** Give the folder up: deletes it, then the lock (idempotent). */
  release(): Promise<void>;
}

/** How long to wait for another execution's lock before saying so in the log, in milliseconds. */
const WAIT_NOTICE_MS = 200;

/**
 * Take the run's lock (waiting while another execution on this machine holds it), then make the
 * run's scratch folder (0700), empty: a folder an execution that died left there is deleted first
 * (the run branch holds what it checkpointed).
 *
 * @param scratchRoot the root @default `<temp folder>/odek-runs`
 * @param runId the run
 * @param log told once when another execution holds the lock @default nothing
 * @returns the folder and its release
 * @throws {OdekError} `WORKSPACE_INVALID` when the root is not a 0700 directory of this user
 */
export async function runScratch(
  scratchRoot: string | undefined,
  runId: string,
  log: (line: string) => void = () => {},
): Promise<RunScratch> {
  const root = scratchRoot ?? join(tmpdir(), "odek-runs");
  await Deno.mkdir(root, { recursive: true, mode: 0o700 });
  const info = await Deno.lstat(root);
  if (!info.isDirectory || info.uid !== Deno.uid() || (info.mode! & 0o077) !== 0) {
    throw new OdekError(
      "WORKSPACE_INVALID",
      `The scratch folder ${root} must be a directory of this user with mode 0700 (it is a ${
        info.isSymlink ? "symlink" : info.isDirectory ? "directory" : "file"
      }, uid ${info.uid}, mode ${
        (info.mode! & 0o777).toString(8)
      }): fix it or pass another --git-scratch.`,
    );
  }
  // The same path on every worker and in every execution of the run: the path is in the
  // session's records (its meta, the system prompt), which a takeover's replay writes again.
  const name = createHash("sha256").update(runId).digest("hex").slice(0, 24);
  const real = await Deno.realPath(root);
  const scratch = join(real, name);
  const lock = await lockRun(
    `${scratch}.lock`,
    () =>
      log(`run ${runId}: another execution of this run on this machine holds ${scratch}; waiting`),
  );
  let released: Promise<void> | undefined;
  const release = () =>
    released ??= (async () => {
      await Deno.remove(scratch, { recursive: true }).catch(() => {});
      await lock.release();
    })();
  try {
    // A folder left by an execution that died (the run branch holds what it checkpointed).
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    await Deno.mkdir(scratch, { mode: 0o700 });
  } catch (error) {
    await release();
    throw error;
  }
  return { path: scratch, release };
}

/**
 * An exclusive `flock` on the file at `path`, released by the process's exit at the latest. The file
 * is removed on release; a waiter that then holds a removed file's lock opens the path again
 * (the usual check: the locked file must still be the one at the path).
 */
async function lockRun(path: string, waiting: () => void): Promise<{ release(): Promise<void> }> {
  let told = false;
  for (;;) {
    const file = await Deno.open(path, { create: true, write: true, mode: 0o600 });
    try {
      const timer = told ? undefined : setTimeout(() => {
        told = true;
        waiting();
      }, WAIT_NOTICE_MS);
      try {
        await file.lock(true);
      } finally {
        clearTimeout(timer);
      }
      const held = await file.stat();
      const now = await Deno.lstat(path).catch(() => null);
      if (now && now.ino === held.ino && now.dev === held.dev) {
        return {
          release: async () => {
            await Deno.remove(path).catch(() => {});
            file.close();
          },
        };
      }
    } catch (error) {
      file.close();
      throw error;
    }
    file.close();
  }
}
