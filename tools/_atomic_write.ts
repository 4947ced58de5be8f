/**
 * Atomic replacement of a file, shared by `write_file` and `patch` (odek-go §4.1): a temporary
 * file in the same directory, fsync, chmod, rename.
 *
 * @module
 */
import { basename, dirname, join } from "./_posix_path.ts";

/**
 * Replace (or create) `target` with `bytes` atomically: readers see the old file or the new one,
 * never a partial one. The temporary file is removed when anything fails.
 *
 * @param target the real path to write (its parent exists and was checked by the caller)
 * @param bytes the new content
 * @param mode the permission bits of the result (e.g. `0o644`)
 * @throws Deno and OS errors (`NotCapable`, `PermissionDenied`, EROFS), unchanged
 *
 * @example
 * ```ts
 * import { atomicWrite } from "./_atomic_write.ts";
 * const dir = await Deno.makeTempDir();
 * try {
 *   await atomicWrite(`${dir}/a.txt`, new TextEncoder().encode("hi"), 0o600);
 *   if ((await Deno.stat(`${dir}/a.txt`)).mode! % 0o1000 !== 0o600) throw new Error("mode");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function atomicWrite(
  target: string,
  bytes: Uint8Array,
  mode: number,
): Promise<void> {
  const temp = join(
    dirname(target),
    `.${basename(target)}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    const file = await Deno.open(temp, { write: true, createNew: true, mode });
    try {
      for (let written = 0; written < bytes.length;) {
        written += await file.write(bytes.subarray(written));
      }
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.chmod(temp, mode);
    await Deno.rename(temp, target);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * Overwrite `target` in place (truncate, write, fsync): for a single granted file, whose
 * directory is not writable, so no temporary file can go beside it. Readers may see a partial
 * file while it is written.
 *
 * @param target the real path of an existing regular file
 * @param bytes the new content
 * @throws Deno and OS errors unchanged
 *
 * @example
 * ```ts
 * import { writeInPlace } from "./_atomic_write.ts";
 * const file = await Deno.makeTempFile();
 * await writeInPlace(file, new TextEncoder().encode("hi"));
 * if (await Deno.readTextFile(file) !== "hi") throw new Error();
 * await Deno.remove(file);
 * ```
 */
export async function writeInPlace(target: string, bytes: Uint8Array): Promise<void> {
  using file = await Deno.open(target, { write: true, truncate: true });
  for (let written = 0; written < bytes.length;) {
    written += await file.write(bytes.subarray(written));
  }
  await file.syncData();
}
