/**
 * The scope one tool call runs with: the output of {@linkcode derivePermissions} and the input
 * of the renderer that turns it into Deno flags and bwrap arguments (design §2).
 *
 * @module
 */

/** Network policy of a sandbox. `none`: the namespace has only `lo`. */
export type NetworkPolicy = { type: "none" } | { type: "proxy"; allowDomains: string[] };

/**
 * A permission set. Paths are absolute and already resolved (realpath). Two calls with equal
 * sets (see {@linkcode permissionSetKey}) share one long-lived tool child.
 */
export interface PermissionSet {
  /** Directories and files readable (besides `/` read-only, which every sandbox shows). */
  readPaths: string[];
  /** Directories and files writable. */
  writePaths: string[];
  network: NetworkPolicy;
  /** Binaries a Deno tool child may run (never deno itself). Usually empty. */
  runBinaries: string[];
  /** Environment variable names passed into the child besides the fixed base set. */
  envNames: string[];
  /**
   * Existing files and directories inside a writable path that stay read-only: the workspace's
   * protected files (hooks, `.git/config`, `.envrc` …; `tools/_catalogue/protected_paths.ts`)
   * that the call's approval does not name. @default none
   */
  readOnlyPaths?: string[];
}

/**
 * A stable string key for a permission set (sorted, so order does not matter).
 *
 * @example
 * ```ts
 * import { permissionSetKey } from "./permission_set.ts";
 * const a = permissionSetKey({ readPaths: ["/b", "/a"], writePaths: [], network: { type: "none" }, runBinaries: [], envNames: [] });
 * const b = permissionSetKey({ readPaths: ["/a", "/b"], writePaths: [], network: { type: "none" }, runBinaries: [], envNames: [] });
 * if (a !== b) throw new Error("keys differ");
 * ```
 */
export function permissionSetKey(set: PermissionSet): string {
  const sorted = (xs: string[]) => [...new Set(xs)].sort();
  return JSON.stringify({
    r: sorted(set.readPaths),
    w: sorted(set.writePaths),
    n: set.network.type === "none" ? "none" : sorted(set.network.allowDomains),
    x: sorted(set.runBinaries),
    e: sorted(set.envNames),
    ...(set.readOnlyPaths?.length ? { o: sorted(set.readOnlyPaths) } : {}),
  });
}
