/**
 * Granted write targets that do not exist yet (`echo x >> ~/.newrc`, `write_file /tmp/notes.txt`):
 * a bind mount needs a source, so after approval and just before the call's sandbox starts, the
 * core creates the missing target on the host as an empty file (mode 0600) and binds it at its
 * real path. The write then lands on the host file. A placeholder the call left untouched (still
 * empty, same inode and mtime) is removed afterwards. The target's directory must exist: odek
 * creates no directory the approval did not name (such a target is not granted, and the call is
 * told so, naming `--add-dir`).
 *
 * Trade-off (docs/sandbox.md): the target is created as a *file*, so a program that wanted a
 * directory there (`mkdir ~/.newdir`) fails with "File exists"; binding the parent instead would
 * grant every sibling of the target (`~` itself for `~/.newrc`), which the approval never named.
 * Nothing is ever created inside or over a protected root, compared as written and resolved.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { findOverlap } from "../config/find_overlap.ts";

/** What was created for one missing target, to undo when the program left it untouched. */
export interface Placeholder {
  /** The granted target as the permission set names it. */
  target: string;
  /** The empty file created (its real path). */
  file: string;
  ino: number | null;
  mtimeMs: number | null;
  /** Directories created for it, deepest first. */
  dirs: string[];
}

/**
 * Create the missing granted targets. Targets that exist, that overlap a protected root, or
 * whose nearest existing ancestor is not a directory are left alone (the sandbox then fails to
 * start or the write fails, as data). Never throws for one target: a failure leaves it missing.
 *
 * @param targets write paths of the permission set other than the workspace and the added
 *   directories (absolute)
 * @param protectedRoots ODEK_HOME, the install directory
 * @returns the placeholders created
 */
export async function createMissingTargets(
  targets: readonly string[],
  protectedRoots: readonly string[],
): Promise<Placeholder[]> {
  const created: Placeholder[] = [];
  for (const target of targets) {
    if (await lexists(target)) continue;
    const missing = [basename(target)];
    const ancestor = dirname(target);
    if (!(await lexists(ancestor))) continue; // no directory to create it in: not granted
    let real: string;
    try {
      real = await Deno.realPath(ancestor);
      // Targets come resolved (`realTargets`): an ancestor that resolves elsewhere now was
      // swapped for a link meanwhile, and nothing is created through it.
      if (real !== ancestor || !(await Deno.lstat(real)).isDirectory) continue;
    } catch {
      continue;
    }
    const file = join(real, ...missing);
    if ((await findOverlap([target, file], protectedRoots)) !== null) continue;
    const dirs: string[] = [];
    try {
      let dir = real;
      for (const part of missing.slice(0, -1)) {
        dir = join(dir, part);
        await Deno.mkdir(dir, { mode: 0o700 });
        dirs.unshift(dir);
      }
      const handle = await Deno.open(file, { createNew: true, write: true, mode: 0o600 });
      const info = await handle.stat();
      handle.close();
      created.push({ target, file, ino: info.ino, mtimeMs: info.mtime?.getTime() ?? null, dirs });
    } catch {
      await removeUntouched([{ target, file, ino: null, mtimeMs: null, dirs }]);
    }
  }
  return created;
}

/**
 * Remove the placeholders a program did not touch: the file when it is still an empty regular
 * file with the same inode and mtime, then each directory created for it when it is empty.
 *
 * @param placeholders what {@linkcode createMissingTargets} returned
 */
export async function removeUntouched(placeholders: readonly Placeholder[]): Promise<void> {
  for (const placeholder of placeholders) {
    try {
      const info = await Deno.lstat(placeholder.file);
      const untouched = info.isFile && info.size === 0 && info.ino === placeholder.ino &&
        (info.mtime?.getTime() ?? null) === placeholder.mtimeMs;
      if (!untouched) continue;
      await Deno.remove(placeholder.file);
    } catch {
      // Gone already, or not ours to judge: keep the directories too.
      if (placeholder.ino !== null) continue;
    }
    for (const dir of placeholder.dirs) {
      try {
        await Deno.remove(dir); // not recursive: only an empty directory goes
      } catch {
        break;
      }
    }
  }
}

async function lexists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
