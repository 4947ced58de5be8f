/**
 * POSIX path joining and normalising for the file tools' containment code, with the semantics of
 * Node's `path.posix` (the algorithm of Node's `lib/path.js`: `.` and `..` folded, repeated
 * slashes collapsed, a trailing slash kept by `normalize`/`join` and dropped by `resolve`).
 *
 * Why not `node:path`: in a file-tool child it is the first Node module, and loading Deno's Node
 * layer for it costs 7–9 ms of a new scope's first call (docs/performance.md). Why not a library:
 * `pathe` (ESM) turns every `\` into `/`, which is a different file on POSIX (a name may hold a
 * backslash), and `path-browserify`/`path-posix` are CommonJS, which brings in the Node layer
 * again. `tests/tools/posix_path_test.ts` compares every function with `node:path`'s POSIX one
 * on thousands of generated paths.
 *
 * @module
 */

/** The separator, `/`. */
export const sep = "/";

/** Fold `.`, `..` and repeated slashes of a path without its leading slash (Node's algorithm). */
function normalizeString(path: string, allowAboveRoot: boolean): string {
  let res = "";
  let lastSegmentLength = 0;
  let lastSlash = -1;
  let dots = 0;
  let code = 0;
  for (let i = 0; i <= path.length; ++i) {
    if (i < path.length) code = path.charCodeAt(i);
    else if (code === 47) break;
    else code = 47;
    if (code === 47) {
      if (lastSlash === i - 1 || dots === 1) {
        // NOOP: an empty segment or `.`
      } else if (dots === 2) {
        if (
          res.length < 2 || lastSegmentLength !== 2 ||
          res.charCodeAt(res.length - 1) !== 46 ||
          res.charCodeAt(res.length - 2) !== 46
        ) {
          if (res.length > 2) {
            const lastSlashIndex = res.lastIndexOf("/");
            if (lastSlashIndex === -1) {
              res = "";
              lastSegmentLength = 0;
            } else {
              res = res.slice(0, lastSlashIndex);
              lastSegmentLength = res.length - 1 - res.lastIndexOf("/");
            }
            lastSlash = i;
            dots = 0;
            continue;
          } else if (res.length !== 0) {
            res = "";
            lastSegmentLength = 0;
            lastSlash = i;
            dots = 0;
            continue;
          }
        }
        if (allowAboveRoot) {
          res += res.length > 0 ? "/.." : "..";
          lastSegmentLength = 2;
        }
      } else {
        if (res.length > 0) res += `/${path.slice(lastSlash + 1, i)}`;
        else res = path.slice(lastSlash + 1, i);
        lastSegmentLength = i - lastSlash - 1;
      }
      lastSlash = i;
      dots = 0;
    } else if (code === 46 && dots !== -1) {
      ++dots;
    } else {
      dots = -1;
    }
  }
  return res;
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
  return path.length > 0 && path.charCodeAt(0) === 47;
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
  if (path.length === 0) return ".";
  const absolute = isAbsolute(path);
  const trailing = path.charCodeAt(path.length - 1) === 47;
  let out = normalizeString(path, !absolute);
  if (out.length === 0) {
    if (absolute) return "/";
    return trailing ? "./" : ".";
  }
  if (trailing) out += "/";
  return absolute ? `/${out}` : out;
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
  let joined: string | undefined;
  for (const path of paths) {
    if (path.length > 0) {
      joined = joined === undefined ? path : `${joined}/${path}`;
    }
  }
  return joined === undefined ? "." : normalize(joined);
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
  let resolved = "";
  let absolute = false;
  for (let i = paths.length - 1; i >= -1 && !absolute; i--) {
    const path = i >= 0 ? paths[i] : Deno.cwd();
    if (path.length === 0) continue;
    resolved = `${path}/${resolved}`;
    absolute = isAbsolute(path);
  }
  const out = normalizeString(resolved, !absolute);
  if (absolute) return `/${out}`;
  return out.length > 0 ? out : ".";
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
  if (from === to) return "";
  from = resolve(from);
  to = resolve(to);
  if (from === to) return "";
  const fromStart = 1;
  const fromEnd = from.length;
  const fromLen = fromEnd - fromStart;
  const toStart = 1;
  const toLen = to.length - toStart;
  const length = fromLen < toLen ? fromLen : toLen;
  let lastCommonSep = -1;
  let i = 0;
  for (; i < length; i++) {
    const fromCode = from.charCodeAt(fromStart + i);
    if (fromCode !== to.charCodeAt(toStart + i)) break;
    else if (fromCode === 47) lastCommonSep = i;
  }
  if (i === length) {
    if (toLen > length) {
      if (to.charCodeAt(toStart + i) === 47) return to.slice(toStart + i + 1);
      if (i === 0) return to.slice(toStart + i);
    } else if (fromLen > length) {
      if (from.charCodeAt(fromStart + i) === 47) lastCommonSep = i;
      else if (i === 0) lastCommonSep = 0;
    }
  }
  let out = "";
  for (i = fromStart + lastCommonSep + 1; i <= fromEnd; ++i) {
    if (i === fromEnd || from.charCodeAt(i) === 47) {
      out += out.length === 0 ? ".." : "/..";
    }
  }
  return `${out}${to.slice(toStart + lastCommonSep)}`;
}

/**
 * The directory part of a path (trailing slashes ignored): `"."` for a bare name, `"/"` for a
 * child of the root.
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
  if (path.length === 0) return ".";
  const hasRoot = path.charCodeAt(0) === 47;
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 1; --i) {
    if (path.charCodeAt(i) === 47) {
      if (!matchedSlash) {
        end = i;
        break;
      }
    } else {
      matchedSlash = false;
    }
  }
  if (end === -1) return hasRoot ? "/" : ".";
  if (hasRoot && end === 1) return "//";
  return path.slice(0, end);
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
  let start = 0;
  let end = -1;
  let matchedSlash = true;
  for (let i = path.length - 1; i >= 0; --i) {
    if (path.charCodeAt(i) === 47) {
      if (!matchedSlash) {
        start = i + 1;
        break;
      }
    } else if (end === -1) {
      matchedSlash = false;
      end = i + 1;
    }
  }
  return end === -1 ? "" : path.slice(start, end);
}
