/**
 * The user odek runs as, without needing `--allow-sys`.
 *
 * @module
 */

/** A numeric user and group id. */
export interface UserIds {
  uid: number;
  gid: number;
}

/**
 * The effective user and group of this process: `Deno.uid()`/`Deno.gid()` when `--allow-sys`
 * grants them, else the owner of a temporary file this process creates (and removes), which is
 * the same thing as far as the file system is concerned.
 *
 * @returns the ids
 * @throws what `Deno.makeTempFile` throws when neither way works
 *
 * @example
 * ```ts
 * import { currentUser } from "./current_user.ts";
 * const { uid } = await currentUser();
 * if (!Number.isInteger(uid) || uid < 0) throw new Error(String(uid));
 * ```
 */
export async function currentUser(): Promise<UserIds> {
  try {
    const uid = Deno.uid();
    const gid = Deno.gid();
    if (uid !== null && gid !== null) return { uid, gid };
  } catch {
    // No --allow-sys: ask the file system.
  }
  const probe = await Deno.makeTempFile({ prefix: "odek-uid-" });
  try {
    const info = await Deno.stat(probe);
    return { uid: info.uid ?? 0, gid: info.gid ?? 0 };
  } finally {
    await Deno.remove(probe);
  }
}
