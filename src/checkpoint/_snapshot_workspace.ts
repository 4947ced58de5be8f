/**
 * One pass over the workspace for a checkpoint: every file, executable and symlink that
 * `.gitignore` does not exclude, hashed into the shadow repository's object store. Symlinks are
 * recorded as links, never followed; each file is read with the open-then-verify helper; a file
 * whose size, times, inode and mode are unchanged since it was last hashed (and were not too
 * recent to trust) is not read again. What is not recorded — ignored paths, files over the size
 * cap, sockets and devices, files that cannot be read safely — is listed with a fingerprint, so a
 * restore can say what changed among them.
 *
 * @module
 */
import { join } from "node:path";
import { OdekError } from "../_util/odek_error.ts";
import { readVerifiedFile } from "../_util/read_verified_file.ts";
import { type GitMode, hashObject, hasObject, writeObject } from "./_git_objects.ts";
import { type IgnoreRules, isIgnored, loadIgnoreRules } from "./_ignore_rules.ts";
import type { CheckpointLimits, UnrecordedPath } from "./checkpoint_store.ts";

/** A recorded path. */
export interface SnapshotFile {
  mode: Exclude<GitMode, "40000">;
  /** The blob id. */
  oid: string;
  size: number;
  /** Permission bits (e.g. 0o600), restored exactly. */
  perm: number;
}

/** What one pass found. */
export interface Snapshot {
  /** Recorded paths (relative, `/`-separated). */
  files: Map<string, SnapshotFile>;
  /** Not recorded (at most {@linkcode MAX_UNRECORDED}). */
  unrecorded: UnrecordedPath[];
  /** Whether more were left out of `unrecorded`. */
  unrecordedTruncated: boolean;
  /** Bytes of the recorded files. */
  bytes: number;
}

/** Most unrecorded paths listed in one checkpoint. */
export const MAX_UNRECORDED = 2000;

/** A file's stat facts, and the blob they were hashed to. */
export interface StatCacheEntry {
  key: string;
  oid: string;
}

/** Stat key → blob id, shared by the passes of one shadow repository. */
export type StatCache = Map<string, StatCacheEntry>;

/**
 * A file whose stat facts may not yet tell a later change apart is hashed again next time: a
 * change within the timestamp granularity would keep them equal. Deno reports `ctime` in whole
 * seconds (Deno 2.9), and some file systems (FAT, some network ones) `mtime` too, so a file
 * changed (or `touch`ed back) within 2 s of being hashed is not trusted; where `mtime` has a
 * fraction of a second, 50 ms suffice for it.
 */
const RACY_MS = { fine: 50, coarse: 2000 };

/**
 * Walk and hash the workspace.
 *
 * @throws {OdekError} `CHECKPOINT_UNAVAILABLE` when the files not ignored exceed the limits
 */
export async function snapshotWorkspace(
  workspace: string,
  gitdir: string,
  options: { limits: CheckpointLimits; cache: StatCache; known: Set<string> },
): Promise<Snapshot> {
  const { limits, cache, known } = options;
  const snapshot: Snapshot = {
    files: new Map(),
    unrecorded: [],
    unrecordedTruncated: false,
    bytes: 0,
  };
  const tops = new Map<string, { files: number; bytes: number }>();
  const unrecorded = (entry: UnrecordedPath) => {
    if (snapshot.unrecorded.length < MAX_UNRECORDED) snapshot.unrecorded.push(entry);
    else snapshot.unrecordedTruncated = true;
  };
  const pending: { dir: string; rules: IgnoreRules[] }[] = [{ dir: "", rules: [] }];
  const now = Date.now();
  while (pending.length > 0) {
    const { dir, rules: inherited } = pending.pop()!;
    const own = await loadIgnoreRules(workspace, dir);
    const rules = own ? [...inherited, own] : inherited;
    let names: Deno.DirEntry[];
    try {
      names = [...Deno.readDirSync(join(workspace, dir))];
    } catch {
      continue; // unreadable (or replaced meanwhile): nothing in it can be recorded
    }
    for (const entry of names) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.name === ".git") continue; // a repository's own data is never recorded or touched
      let info: Deno.FileInfo;
      try {
        info = Deno.lstatSync(join(workspace, path));
      } catch {
        continue; // gone meanwhile
      }
      const kind = info.isSymlink
        ? "symlink"
        : info.isDirectory
        ? "directory"
        : info.isFile
        ? "file"
        : "other";
      const skip = (reason: UnrecordedPath["reason"]) =>
        unrecorded({
          path,
          reason,
          kind,
          ...(kind === "file" ? { size: info.size } : {}),
          mtimeMs: ms(info.mtime),
        });
      if (isIgnored(rules, path, kind === "directory")) {
        skip("ignored");
        continue;
      }
      if (kind === "directory") {
        pending.push({ dir: path, rules });
        continue;
      }
      if (kind === "other") {
        skip("special");
        continue;
      }
      if (kind === "file" && info.size > limits.maxFileBytes) {
        skip("too_large");
        continue;
      }
      const recorded = await record(workspace, gitdir, path, info, {
        cache,
        known,
        now,
        maxBytes: limits.maxFileBytes,
      });
      if (recorded === undefined) {
        skip("unreadable");
        continue;
      }
      snapshot.files.set(path, recorded);
      snapshot.bytes += recorded.size;
      const slash = path.indexOf("/");
      const top = slash === -1 ? path : path.slice(0, slash + 1);
      const counts = tops.get(top) ?? { files: 0, bytes: 0 };
      counts.files++;
      counts.bytes += recorded.size;
      tops.set(top, counts);
      if (snapshot.files.size > limits.maxFiles || snapshot.bytes > limits.maxBytes) {
        throw tooLarge(workspace, snapshot, limits, tops);
      }
    }
  }
  return snapshot;
}

async function record(
  workspace: string,
  gitdir: string,
  path: string,
  info: Deno.FileInfo,
  state: { cache: StatCache; known: Set<string>; now: number; maxBytes: number },
): Promise<SnapshotFile | undefined> {
  const perm = (info.mode ?? 0o644) & 0o7777;
  const mode = info.isSymlink ? "120000" : perm & 0o111 ? "100755" : "100644";
  const key = [ms(info.mtime), ms(info.ctime), info.size, info.ino, info.mode].join(":");
  const cached = state.cache.get(path);
  if (
    cached && cached.key === key && (state.known.has(cached.oid) || hasObject(gitdir, cached.oid))
  ) {
    state.known.add(cached.oid);
    return { mode, oid: cached.oid, size: info.size, perm };
  }
  let bytes: Uint8Array;
  if (info.isSymlink) {
    try {
      bytes = new TextEncoder().encode(Deno.readLinkSync(join(workspace, path)));
    } catch {
      return undefined;
    }
  } else {
    const read = await readVerifiedFile(workspace, path, { maxBytes: state.maxBytes });
    // Grown past the cap while it was read: not recorded (a cut copy would restore wrongly).
    if (read.type !== "file" || read.size > state.maxBytes) return undefined;
    bytes = read.bytes;
  }
  const { oid } = hashObject("blob", bytes);
  if (!state.known.has(oid)) writeObject(gitdir, "blob", bytes);
  state.known.add(oid);
  const mtime = ms(info.mtime);
  const racy = state.now - ms(info.ctime) <= RACY_MS.coarse ||
    state.now - mtime <= (mtime % 1000 === 0 ? RACY_MS.coarse : RACY_MS.fine);
  if (!racy) state.cache.set(path, { key, oid });
  else state.cache.delete(path);
  return { mode, oid, size: bytes.length, perm };
}

function ms(date: Date | null): number {
  return date?.getTime() ?? 0;
}

function tooLarge(
  workspace: string,
  snapshot: Snapshot,
  limits: CheckpointLimits,
  tops: Map<string, { files: number; bytes: number }>,
): OdekError {
  const overFiles = snapshot.files.size > limits.maxFiles;
  const biggest = [...tops].sort((a, b) =>
    overFiles ? b[1].files - a[1].files : b[1].bytes - a[1].bytes
  ).slice(0, 3).map(([name, c]) => `${name} (${c.files} files, ${mib(c.bytes)})`).join(", ");
  const what = overFiles
    ? `more than ${limits.maxFiles} files (checkpoints.maxFiles)`
    : `more than ${mib(limits.maxBytes)} of files (checkpoints.maxMiB)`;
  return new OdekError(
    "CHECKPOINT_UNAVAILABLE",
    `Cannot checkpoint ${workspace}: it holds ${what} that .gitignore does not exclude; the largest so far: ${biggest}. Add build output, dependencies and data to .gitignore, or raise the limit in ODEK_HOME/config.jsonc.`,
  );
}

function mib(bytes: number): string {
  return bytes >= 1024 * 1024 * 1024
    ? `${(bytes / 1024 ** 3).toFixed(1)} GiB`
    : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}
