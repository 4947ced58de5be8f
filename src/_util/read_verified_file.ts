/**
 * Open, then verify: the one way the core reads a file whose path the model or the workspace can
 * influence (`AGENTS.md`, the approval preview; later checkpoints and project configuration must
 * use it too). Deno has no `openat` or `O_NOFOLLOW`, so the file is opened by path and the opened
 * handle is compared with what was checked: a symlink swapped in between is refused, never read.
 *
 * @module
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";

/** What {@linkcode readVerifiedFile} found. */
export type VerifiedFile =
  /** A regular file: its first `maxBytes` bytes and its size when opened. */
  | { type: "file"; bytes: Uint8Array; size: number }
  /** Nothing exists at the path (or a directory on the way is missing). */
  | { type: "missing" }
  /** Not read: a symlink on the way, not a regular file, or changed while it was opened. */
  | { type: "refused"; reason: string };

/** Options for {@linkcode readVerifiedFile}. */
export interface ReadVerifiedFileOptions {
  /** Bytes read at most (the head). @default 1_048_576 */
  maxBytes?: number;
}

/**
 * Read a regular file at `path` (relative to `root`, or absolute) without ever following a
 * symlink: every directory from `root` down and the file itself are `lstat`ed (none may be a
 * symlink; `root` itself must be a directory), the file is opened, the handle's `fstat` (device,
 * inode, type) must equal the file's `lstat`, and after the open every component is `lstat`ed
 * again and must be unchanged. A path outside `root` is walked from `/` the same way. A file
 * exchanged with a symlink (to `~/.ssh/id_rsa`, say) between the check and the open is refused,
 * because the opened object is not the one checked. What this cannot see: a directory on the way
 * exchanged for a symlink and back again exactly between two of these syscalls (Deno exposes no
 * `openat`); docs/security.md, "Races", says what that leaves.
 *
 * Every core-side read of a path the model or the workspace can name must go through this
 * helper (design §2; issue 12): `AGENTS.md`, the approval preview, checkpoints, project config.
 *
 * @param root the directory the path is relative to (absolute, validated: the workspace)
 * @param path the file, relative to `root` or absolute
 * @param options how many bytes to read
 * @returns the bytes, `missing`, or `refused` with the reason
 *
 * @example A symlink is refused, a file is read
 * ```ts
 * import { readVerifiedFile } from "./read_verified_file.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.writeTextFileSync(`${dir}/a.txt`, "hi");
 * Deno.symlinkSync(`${dir}/a.txt`, `${dir}/link`);
 * const read = await readVerifiedFile(dir, "a.txt");
 * if (read.type !== "file" || new TextDecoder().decode(read.bytes) !== "hi") throw new Error();
 * if ((await readVerifiedFile(dir, "link")).type !== "refused") throw new Error("followed a link");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function readVerifiedFile(
  root: string,
  path: string,
  options: ReadVerifiedFileOptions = {},
): Promise<VerifiedFile> {
  try {
    return Promise.resolve(
      readSync(root, path, options.maxBytes ?? 1024 * 1024),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@linkcode readVerifiedFile}, synchronously (for the core's scans, which must not interleave
 * with other work between their checks).
 *
 * @param root the directory the path is relative to (absolute)
 * @param path the file, relative to `root` or absolute
 * @param options how many bytes to read
 * @returns the bytes, `missing`, or `refused` with the reason
 * @throws {TypeError} when `root` is not absolute; other I/O errors unchanged
 *
 * @example
 * ```ts
 * import { readVerifiedFileSync } from "./read_verified_file.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.writeTextFileSync(`${dir}/a.txt`, "hi");
 * if (readVerifiedFileSync(dir, "a.txt").type !== "file") throw new Error();
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function readVerifiedFileSync(
  root: string,
  path: string,
  options: ReadVerifiedFileOptions = {},
): VerifiedFile {
  return readSync(root, path, options.maxBytes ?? 1024 * 1024);
}

/** `lstat` result identity: device, inode and the type bits. */
type Identity = string;

function readSync(root: string, path: string, maxBytes: number): VerifiedFile {
  if (!isAbsolute(root)) {
    throw new TypeError(`root must be absolute, not ${root}`);
  }
  const target = resolve(root, path);
  const base = isWithin(root, target) ? resolve(root) : "/";
  const parts = relative(base, target).split(sep).filter((part) => part !== "");
  if (parts.length === 0) {
    return { type: "refused", reason: `${path} is a directory` };
  }
  const chain = [base];
  for (const part of parts) chain.push(join(chain[chain.length - 1], part));
  const seen: Identity[] = [];
  for (const [i, entry] of chain.entries()) {
    const info = lstatOrNull(entry);
    if (info === null) return { type: "missing" };
    const last = i === chain.length - 1;
    if (info.isSymlink) return refused(path, `${entry} is a symlink`);
    if (!last && !info.isDirectory) {
      return refused(path, `${entry} is not a directory`);
    }
    if (last && !info.isFile) return refused(path, "it is not a regular file");
    seen.push(identity(info));
  }
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(target, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { type: "missing" };
    throw error;
  }
  try {
    const opened = file.statSync();
    if (identity(opened) !== seen[seen.length - 1]) {
      return refused(
        path,
        "the file opened is not the file checked (it was swapped meanwhile)",
      );
    }
    for (const [i, entry] of chain.entries()) {
      const again = lstatOrNull(entry);
      if (again === null || identity(again) !== seen[i]) {
        return refused(path, `${entry} changed while the file was opened`);
      }
    }
    const bytes = new Uint8Array(Math.min(opened.size, maxBytes));
    let read = 0;
    while (read < bytes.length) {
      const n = file.readSync(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    return { type: "file", bytes: bytes.subarray(0, read), size: opened.size };
  } finally {
    file.close();
  }
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound ||
      error instanceof Deno.errors.NotADirectory
    ) {
      return null;
    }
    throw error;
  }
}

function identity(info: Deno.FileInfo): Identity {
  const type = info.isSymlink ? "l" : info.isDirectory ? "d" : info.isFile ? "f" : "o";
  return `${info.dev}:${info.ino}:${type}`;
}

function isWithin(root: string, path: string): boolean {
  const rel = relative(resolve(root), path);
  return rel === "" ||
    (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

function refused(path: string, why: string): VerifiedFile {
  return { type: "refused", reason: `${path} was not read: ${why}` };
}
