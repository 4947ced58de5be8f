/**
 * Resolving a path odek is about to grant, following only the symlinks no sandbox can have put
 * there (docs/security.md, "Races"). Shared by workspace and added-directory validation and by
 * the broker's resolution of granted targets.
 *
 * @module
 */
import { join, relative, resolve, sep } from "node:path";

/** Which directories hold links odek follows. */
export interface TrustedRealPathOptions {
  /**
   * ODEK_HOME and the install directory: a directory that contains one is never granted writable
   * to any sandbox (validation refuses such a workspace or added directory, derivation such a
   * target), so no sandbox can plant or swap a link in it.
   */
  protectedRoots: readonly string[];
  /** The user's home: links directly in it (`~/code` → `/data/code`) are followed too. */
  home?: string;
}

/** The outcome of {@linkcode trustedRealPath}. */
export type TrustedRealPath =
  /** The real path; `missing` is the part that does not exist yet (joined into `path`). */
  | { type: "real"; path: string; missing: string }
  /** A link on the way lies in a directory a sandbox may write: not followed. */
  | { type: "untrusted_link"; link: string; target: string }
  /** A loop, a file in the middle, or an error other than "not found". */
  | { type: "unresolved"; reason: string };

/**
 * Walk `path` from `/` and resolve its symlinks, following one only when the directory holding it
 * contains a protected root or is the home. Any other directory may be some sandbox's writable
 * workspace, added directory or granted target (of this session or another one), where a
 * program can exchange a directory with a link at any moment: a path through such a link is
 * reported, never resolved, so odek never validates one directory and then grants another.
 *
 * @param path an absolute path
 * @param options the protected roots and the home
 * @returns the real path (with the missing tail), the untrusted link, or why it is unresolved
 *
 * @example A link in a plain directory is not followed
 * ```ts
 * import { trustedRealPath } from "./trusted_real_path.ts";
 * const dir = Deno.realPathSync(Deno.makeTempDirSync());
 * Deno.mkdirSync(`${dir}/real`);
 * Deno.symlinkSync("real", `${dir}/link`);
 * const walked = await trustedRealPath(`${dir}/link/x`, { protectedRoots: [] });
 * if (walked.type !== "untrusted_link") throw new Error(walked.type);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function trustedRealPath(
  path: string,
  options: TrustedRealPathOptions,
): Promise<TrustedRealPath> {
  const trusted = (dir: string) =>
    dir === options.home || options.protectedRoots.some((root) => within(resolve(root), dir));
  let parts = resolve(path).split("/").filter(Boolean);
  let current = "/";
  let hops = 0;
  for (let i = 0; i < parts.length;) {
    const next = join(current, parts[i]);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        return { type: "unresolved", reason: `${next}: ${(error as Error).message}` };
      }
      const missing = join(...parts.slice(i));
      return { type: "real", path: join(current, missing), missing };
    }
    if (info.isSymlink) {
      let link: string;
      try {
        link = await Deno.readLink(next);
      } catch (error) {
        // It stopped being a link between the two calls: something is renaming it right now.
        return { type: "unresolved", reason: `${next} changed while it was resolved (${error})` };
      }
      const target = resolve(current, link);
      if (!trusted(current)) return { type: "untrusted_link", link: next, target };
      if (++hops > 40) return { type: "unresolved", reason: `too many links at ${next}` };
      parts = [...target.split("/").filter(Boolean), ...parts.slice(i + 1)];
      current = "/";
      i = 0;
      continue;
    }
    if (!info.isDirectory && i < parts.length - 1) {
      return { type: "unresolved", reason: `${next} is not a directory` };
    }
    current = next;
    i++;
  }
  return { type: "real", path: current, missing: "" };
}

/** `child` is `parent` or below it (whole segments). */
function within(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}
