/**
 * POSIX path joining and normalising for the file tools' containment code, with the results of
 * Node's `path.posix` (`.` and `..` folded, repeated slashes collapsed, a trailing slash kept by
 * `normalize`/`join` and dropped by `resolve`), computed on the path's segments.
 *
 * Why not `node:path`: in a file-tool child it is the first Node module, and loading Deno's Node
 * layer for it costs 7–9 ms of a new scope's first call (docs/performance.md). Why not a library:
 * `pathe` (ESM) turns every `\` into `/`, which is a different file on POSIX (a name may hold a
 * backslash), and `path-browserify`/`path-posix` are CommonJS, which brings in the Node layer
 * again. `tests/catalogue/posix_path_test.ts` compares every function with `node:path`'s POSIX one
 * on thousands of generated paths.
 *
 * @module
 */

/** The separator, `/`. */
export const sep = "/";

/**
 * Fold a path's segments: empty ones and `.` dropped, each `..` taking back the segment before it
 * (a `..` with nothing before it kept when `aboveRoot`, dropped at the root otherwise).
 */
function fold(path: string, aboveRoot: boolean): string[] {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") out.push(segment);
    else if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (aboveRoot) out.push("..");
  }
  return out;
}

/**
 * Whether a path is absolute (starts with `/`).
 *
 * @param path any path
 * @returns `true` for `/…`
 *
 * @example
 * ```ts
 * import { isAbsolute } from "./_posix_path.ts";
 * if (!isAbsolute("/a") || isAbsolute("a/b")) throw new Error("unexpected");
 * ```
 */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/**
 * Normalise a path: `.` and `..` folded, repeated slashes collapsed, a trailing slash kept;
 * `""` becomes `"."`.
 *
 * @param path any path
 * @returns the normalised path
 *
 * @example
 * ```ts
 * import { normalize } from "./_posix_path.ts";
 * if (normalize("/a//b/../c/.") !== "/a/c") throw new Error(normalize("/a//b/../c/."));
 * ```
 */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  const folded = fold(path, !absolute).join("/");
  if (absolute) return folded === "" ? "/" : `/${folded}${path.endsWith("/") ? "/" : ""}`;
  return `${folded === "" ? "." : folded}${path.endsWith("/") ? "/" : ""}`;
}

/**
 * Join the non-empty segments with `/` and normalise the result.
 *
 * @param paths segments
 * @returns the joined path (`"."` for none)
 *
 * @example
 * ```ts
 * import { join } from "./_posix_path.ts";
 * if (join("/w", "a/../b", "c") !== "/w/b/c") throw new Error(join("/w", "a/../b", "c"));
 * ```
 */
export function join(...paths: string[]): string {
  const parts = paths.filter((path) => path !== "");
  return parts.length === 0 ? "." : normalize(parts.join("/"));
}

/**
 * Resolve segments right to left until the path is absolute (the working directory when none
 * is), then normalise it without a trailing slash.
 *
 * @param paths segments
 * @returns an absolute path
 *
 * @example
 * ```ts
 * import { resolve } from "./_posix_path.ts";
 * if (resolve("/w", "a", "/x", "y/..") !== "/x") throw new Error(resolve("/w", "a", "/x", "y/.."));
 * ```
 */
export function resolve(...paths: string[]): string {
  const from = paths.findLastIndex(isAbsolute);
  const parts = (from < 0 ? [Deno.cwd(), ...paths] : paths.slice(from)).filter((p) => p !== "");
  const absolute = parts.length > 0 && isAbsolute(parts[0]);
  const folded = fold(parts.join("/"), !absolute).join("/");
  return absolute ? `/${folded}` : folded === "" ? "." : folded;
}

/**
 * The path from `from` to `to`, both resolved first; `""` when they are the same.
 *
 * @param from the starting point
 * @param to the target
 * @returns a relative path such as `../b/c`
 *
 * @example
 * ```ts
 * import { relative } from "./_posix_path.ts";
 * if (relative("/w/a", "/w/b/c") !== "../b/c") throw new Error(relative("/w/a", "/w/b/c"));
 * ```
 */
export function relative(from: string, to: string): string {
  const a = fold(resolve(from), false);
  const b = fold(resolve(to), false);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
}

/**
 * The directory part of a path (trailing slashes ignored): `"."` for a bare name, `"/"` for a
 * child of the root (`"//"` for one of `//`, as POSIX leaves a leading `//` to the system).
 *
 * @param path any path
 * @returns its directory
 *
 * @example
 * ```ts
 * import { dirname } from "./_posix_path.ts";
 * if (dirname("/w/a/b/") !== "/w/a" || dirname("a") !== ".") throw new Error("unexpected");
 * ```
 */
export function dirname(path: string): string {
  const trimmed = path.replace(/(?<=.)\/+$/, "");
  const cut = trimmed.lastIndexOf("/");
  if (cut < 0) return ".";
  if (cut === 0) return "/";
  return cut === 1 && trimmed.startsWith("//") ? "//" : trimmed.slice(0, cut);
}

/**
 * The last segment of a path (trailing slashes ignored).
 *
 * @param path any path
 * @returns its last segment (`""` for `/`)
 *
 * @example
 * ```ts
 * import { basename } from "./_posix_path.ts";
 * if (basename("/w/a.txt/") !== "a.txt") throw new Error(basename("/w/a.txt/"));
 * ```
 */
export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}
