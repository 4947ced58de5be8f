/**
 * Overlap between a path and odek's protected roots, compared as written and after resolving
 * links, for paths that may not exist yet (design §4).
 *
 * @module
 */
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * The real path of `path`, or of its nearest existing ancestor joined with the missing rest.
 *
 * @param path an absolute, normalised path
 * @returns the path with every link of its existing part resolved
 *
 * @example A missing path below an existing directory
 * ```ts
 * import { realPathOfPossiblyMissing } from "./find_overlap.ts";
 * const tmp = await Deno.realPath("/tmp");
 * if (await realPathOfPossiblyMissing("/tmp/odek-none/a") !== `${tmp}/odek-none/a`) throw new Error();
 * ```
 */
export async function realPathOfPossiblyMissing(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  while (true) {
    try {
      return join(await Deno.realPath(current), ...missing.reverse());
    } catch (error) {
      if (
        !(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.NotADirectory)
      ) {
        throw error;
      }
      const parent = dirname(current);
      if (parent === current) return path;
      missing.push(current.slice(parent.length).replace(/^\//, ""));
      current = parent;
    }
  }
}

/** A protected root a path overlaps, and how. */
export interface Overlap {
  /** The root as given (absolute). */
  root: string;
  /** The spelling of the root that matched: as written or resolved. */
  compared: string;
  /** `inside`: the path lies inside the root; `contains`: the root lies inside the path. */
  how: "inside" | "contains";
}

/**
 * The first protected root that any spelling of the path overlaps, in either direction,
 * comparing every spelling of the path with the root as written and resolved (a missing root
 * through its nearest existing ancestor). Segment-aware: `/a/bc` is not inside `/a/b`.
 *
 * @param spellings the path as written and resolved (absolute)
 * @param protectedRoots the roots
 * @returns the overlap, or `null`
 *
 * @example A future file inside ODEK_HOME
 * ```ts
 * import { findOverlap } from "./find_overlap.ts";
 * const overlap = await findOverlap(["/nonexistent/home/.odek/x"], ["/nonexistent/home/.odek"]);
 * if (overlap?.how !== "inside") throw new Error(JSON.stringify(overlap));
 * ```
 */
export async function findOverlap(
  spellings: string[],
  protectedRoots: readonly string[],
): Promise<Overlap | null> {
  for (const root of protectedRoots) {
    const rootWritten = resolve(root);
    const rootReal = await realPathOfPossiblyMissing(rootWritten);
    for (const path of new Set(spellings)) {
      for (const compared of new Set([rootWritten, rootReal])) {
        if (within(path, compared)) return { root: rootWritten, compared, how: "inside" };
        if (within(compared, path)) return { root: rootWritten, compared, how: "contains" };
      }
    }
  }
  return null;
}

function within(child: string, parent: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep));
}
