/**
 * The `glob` tool (odek-go §4.1): files under a workspace directory matching a glob pattern.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { join, relative } from "./_posix_path.ts";
import picomatch from "picomatch";
import { ToolFailure } from "./_catalogue/tool_failure.ts";
import { isWithin, resolveReadTarget } from "./_resolve_target.ts";

/** Most matches one call returns. */
export const MAX_GLOB_MATCHES = 1000;
/** Directory names the walk never enters. */
export const SKIPPED_DIRECTORIES: readonly string[] = [".git", "node_modules"];

/**
 * List the files (and symlinks, which are never followed) under `path` whose path relative to
 * `path` matches `pattern` (picomatch syntax, dotfiles only when the pattern names them),
 * sorted, as workspace-relative paths. `.git` and `node_modules` are skipped, symlinked
 * directories are never entered, at most 1000 matches are listed with a note when more exist.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param context the realpathed workspace, the added roots and the abort signal
 * @returns one path per line, or a line saying nothing matched
 * @throws {ToolFailure} an absolute pattern or one with a `..` segment (`invalid_arguments`),
 *   a path outside the workspace (`denied`) or not a directory (`failed`)
 *
 * @example List TypeScript files
 * ```ts
 * import { glob } from "./_glob.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * const context = { workspace: ws, roots: [], signal: new AbortController().signal };
 * try {
 *   await Deno.mkdir(`${ws}/src`);
 *   await Deno.writeTextFile(`${ws}/src/a.ts`, "");
 *   await Deno.writeTextFile(`${ws}/src/b.md`, "");
 *   if (await glob({ pattern: "**\/*.ts", path: "." }, context) !== "src/a.ts") throw new Error("wrong matches");
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function glob(
  args: ToolArgs<"glob">,
  context: ToolContext,
): Promise<string> {
  const { pattern, path } = args;
  const { workspace, roots, signal } = context;
  if (pattern.startsWith("/") || pattern.split("/").includes("..")) {
    throw new ToolFailure(
      "invalid_arguments",
      `The pattern ${pattern} is absolute or climbs with "..": give a relative pattern and set path`,
    );
  }
  const root = await Deno.realPath(workspace);
  const base = await resolveReadTarget(root, path, roots);
  if (!(await Deno.stat(base)).isDirectory) {
    throw new ToolFailure(
      "failed",
      `${path} is not a directory: glob needs a directory to search`,
    );
  }
  const isMatch: (candidate: string) => boolean = picomatch(pattern);
  const matches: string[] = [];
  const pending = [""];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    signal.throwIfAborted();
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(join(base, dir)));
    } catch {
      continue; // an unreadable directory is skipped, as it would be for the model anyway
    }
    for (const entry of entries) {
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory) {
        if (!SKIPPED_DIRECTORIES.includes(entry.name)) pending.push(rel);
      } else if (isMatch(rel)) {
        const found = join(base, rel);
        // A match in a granted directory outside the workspace is shown absolute.
        matches.push(
          isWithin(root, found) ? relative(root, found) || "." : found,
        );
      }
    }
  }
  if (matches.length === 0) return `(no files under ${path} match ${pattern})`;
  matches.sort();
  const listed = matches.slice(0, MAX_GLOB_MATCHES).join("\n");
  return matches.length > MAX_GLOB_MATCHES
    ? `${listed}\n[showing ${MAX_GLOB_MATCHES} of ${matches.length} matches: narrow the pattern or the path]`
    : listed;
}
