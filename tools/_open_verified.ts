/**
 * Open, then verify, for the file children: Deno opens by path and follows symlinks (it has no
 * `O_NOFOLLOW` or `openat`), so a target that passed the realpath check can be swapped for a link
 * before it is opened — to odek's own `tools/deno.json`, which the child mounts for itself, or to
 * anything else its sandbox shows. The opened handle is therefore compared with what was checked.
 *
 * @module
 */
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/** An opened regular file and its `fstat`. Close `file` when done. */
export interface VerifiedOpen {
  file: Deno.FsFile;
  info: Deno.FileInfo;
}

/**
 * Open a regular file at an already realpathed, contained `path` and prove the handle is that
 * file: `lstat` (not a symlink, a regular file), open, the handle's `fstat` (device, inode, type)
 * equal to the `lstat`, then `realpath(path)` still `path` and a second `lstat` unchanged. A file
 * exchanged with a symlink at any point of this is refused as `denied`, and nothing of what the
 * link points to is read.
 *
 * @param path the real path (checked to be inside the workspace by the caller)
 * @param shown the path as the model wrote it, for messages
 * @returns the open file and its `fstat`
 * @throws {ToolFailure} `denied` when the file changed (a link swapped in); `failed` when it is
 *   not a regular file; `Deno.errors.NotFound` when it is gone
 *
 * @example
 * ```ts
 * import { openVerified } from "./_open_verified.ts";
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(`${dir}/a.txt`, "hi");
 *   const { file, info } = await openVerified(`${dir}/a.txt`, "a.txt");
 *   file.close();
 *   if (info.size !== 2) throw new Error("wrong size");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 */
export async function openVerified(
  path: string,
  shown: string,
): Promise<VerifiedOpen> {
  const checked = await Deno.lstat(path);
  if (checked.isSymlink) throw swapped(shown, "it is a symlink now");
  if (!checked.isFile) {
    throw new ToolFailure("failed", `${shown} is not a regular file`);
  }
  const file = await Deno.open(path, { read: true });
  try {
    const info = await file.stat();
    if (!same(info, checked)) {
      throw swapped(shown, "the file opened is not the file checked");
    }
    const real = await Deno.realPath(path).catch(() => null);
    if (real !== path) {
      throw swapped(shown, `it now resolves to ${real ?? "nothing"}`);
    }
    const again = await Deno.lstat(path).catch(() => null);
    if (again === null || !same(again, info)) {
      throw swapped(shown, "it changed while it was opened");
    }
    return { file, info };
  } catch (error) {
    file.close();
    throw error;
  }
}

function same(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.isFile && b.isFile;
}

function swapped(shown: string, why: string): ToolFailure {
  return new ToolFailure(
    "denied",
    `${shown} was not read: ${why} (it was renamed or swapped for a link after it was checked). File tools never read through a link out of the workspace`,
  );
}
