/**
 * Cross-process session locks: `<id>.lock` (0600), held with an exclusive advisory lock (`flock`)
 * for the life of the session, and holding `{ pid, startedAt }` for the error message.
 *
 * Liveness comes from the kernel, not from the file's content: a process's `flock` is released
 * when it exits, however it exits (SIGKILL included), so a lock file nobody holds is stale and is
 * simply taken over, and a reused pid cannot fool the check. (Reading `/proc/<pid>/stat` would need
 * `--allow-all` under Deno 2.9, which the core never has.) Files are opened close-on-exec, so
 * children odek spawns never inherit the lock.
 *
 * @module
 */
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";

const LockHolderSchema = z.object({ pid: z.number().int(), startedAt: z.string() });

/** The content of a lock file. */
export type LockHolder = z.infer<typeof LockHolderSchema>;

/** A held lock. */
export interface HeldLock {
  /** Remove the lock file and release the lock. Idempotent. */
  release(): Promise<void>;
}

/** Attempts before a contended lock is reported as held (a `list()` probe holds it briefly). */
const ATTEMPTS = 5;
/** Pause between attempts, in milliseconds. */
const RETRY_MS = 10;

/**
 * Take the lock at `lockPath` for session `id`, taking over a lock file no live process holds.
 * @throws {OdekError} `SESSION_LOCKED` when a live process holds it.
 */
export async function acquireSessionLock(
  lockPath: string,
  id: string,
  now: () => Date,
): Promise<HeldLock> {
  for (let attempt = 1;; attempt++) {
    const file = await Deno.open(lockPath, { read: true, write: true, create: true, mode: 0o600 });
    let held = false;
    try {
      if (!(await file.tryLock(true))) {
        if (attempt < ATTEMPTS) {
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        throw lockedError(id, lockPath, await readHolder(lockPath));
      }
      // A holder that was closing may have unlinked the file we locked: lock the current one.
      const ours = await file.stat();
      if (!sameFile(ours, await statOrUndefined(lockPath))) continue;
      const content = new TextEncoder().encode(
        JSON.stringify({ pid: Deno.pid, startedAt: now().toISOString() } satisfies LockHolder),
      );
      await file.truncate(0);
      let written = 0;
      while (written < content.length) written += await file.write(content.subarray(written));
      held = true;
      return { release: releaser(file, lockPath, ours) };
    } finally {
      if (!held) file.close();
    }
  }
}

/**
 * Whether a live process holds the lock at `lockPath` (probed with a shared lock, so it never
 * blocks the holder; a concurrent opener retries).
 */
export async function isSessionLocked(lockPath: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(lockPath, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  try {
    return !(await file.tryLock(false));
  } finally {
    file.close();
  }
}

function releaser(file: Deno.FsFile, lockPath: string, ours: Deno.FileInfo): () => Promise<void> {
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    try {
      // Unlink while still holding the lock, and only if the path is still our file.
      if (sameFile(ours, await statOrUndefined(lockPath))) await Deno.remove(lockPath);
    } finally {
      file.close();
    }
  };
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo | undefined): boolean {
  return b !== undefined && a.ino === b.ino && a.dev === b.dev;
}

async function statOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | undefined> {
  try {
    const parsed = LockHolderSchema.safeParse(JSON.parse(await Deno.readTextFile(lockPath)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // being written or removed right now
  }
}

function lockedError(id: string, lockPath: string, holder: LockHolder | undefined): OdekError {
  const who = holder
    ? `odek process ${holder.pid} (since ${holder.startedAt})`
    : "another odek process";
  return new OdekError(
    "SESSION_LOCKED",
    `Session "${id}" is in use by ${who}: wait for it to finish or stop it. ` +
      `If no odek is running, delete ${lockPath}.`,
  );
}
