/**
 * The directory walk of `search_files` and `tree`: sorted, depth-first, never following
 * symlinks, skipping the usual dependency and build directories (odek-go §4.1) and whatever the
 * `.gitignore` files of the workspace exclude (rules matched with the npm `ignore` package, the
 * one eslint uses).
 *
 * @module
 */
import { join, relative } from "./_posix_path.ts";
import ignore, { type Ignore } from "ignore";
import { openVerified } from "./_open_verified.ts";

/** Directory names the walk never enters. */
export const SKIPPED_DIRECTORIES: readonly string[] = [
  ".git",
  "node_modules",
  "vendor",
  ".venv",
  "__pycache__",
  "dist",
  "build",
  "target",
  ".next",
];

/** Largest `.gitignore` read, in bytes; a larger one is ignored. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** One entry the walk yields. */
export interface WalkEntry {
  /** Path relative to the workspace root (`/`-separated). */
  path: string;
  name: string;
  kind: "file" | "directory" | "symlink" | "other";
  /** 1 for the entries directly in the start directory. */
  depth: number;
  /** Real path (the start directory's real path joined with the relative path). */
  real: string;
}

/** Options for {@linkcode walkWorkspace}. */
export interface WalkOptions {
  /** Deepest level yielded (1 = the start directory's own entries). @default Infinity */
  maxDepth?: number;
  /** Stops the walk: the next directory read throws the abort reason. */
  signal?: AbortSignal;
}

/**
 * Walk `start` (a real directory inside `root`) depth-first, entries of each directory sorted by
 * name, a directory yielded before its contents. Skipped directories and paths excluded by a
 * `.gitignore` in `root`, in `start`'s ancestors up to `root`, or in a directory walked through
 * are not yielded (and never entered). Symlinks are yielded as `symlink` and never followed;
 * unreadable directories are passed over.
 *
 * @param root the realpathed workspace
 * @param start a real directory inside it
 * @param options the depth limit and an abort signal
 * @returns the entries, lazily
 * @throws the signal's abort reason once it aborts
 *
 * @example
 * ```ts
 * import { walkWorkspace } from "./_walk.ts";
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(`${ws}/.gitignore`, "*.log\n");
 *   await Deno.writeTextFile(`${ws}/a.log`, "");
 *   await Deno.writeTextFile(`${ws}/b.ts`, "");
 *   const names = (await Array.fromAsync(walkWorkspace(ws, ws))).map((e) => e.path);
 *   if (names.join(",") !== ".gitignore,b.ts") throw new Error(names.join(","));
 * } finally {
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export async function* walkWorkspace(
  root: string,
  start: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  const maxDepth = options.maxDepth ?? Infinity;
  const rules: Rules[] = [];
  const startRel = relative(root, start);
  const ancestors = startRel === "" ? [] : startRel.split("/");
  for (let i = 0; i < ancestors.length; i++) {
    const dir = ancestors.slice(0, i).join("/");
    const loaded = await loadRules(root, dir);
    if (loaded) rules.push(loaded);
  }
  yield* walkDirectory(
    root,
    startRel,
    1,
    { maxDepth, signal: options.signal },
    rules,
  );
}

interface Rules {
  /** Directory of the `.gitignore`, relative to the root ("" for the root). */
  dir: string;
  matcher: Ignore;
}

async function* walkDirectory(
  root: string,
  dir: string,
  depth: number,
  limits: { maxDepth: number; signal?: AbortSignal },
  inherited: Rules[],
): AsyncGenerator<WalkEntry> {
  limits.signal?.throwIfAborted();
  const own = await loadRules(root, dir);
  const rules = own ? [...inherited, own] : inherited;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(join(root, dir)));
  } catch {
    return; // an unreadable directory is passed over, as it would be for the model anyway
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    const kind = entry.isSymlink
      ? "symlink"
      : entry.isDirectory
      ? "directory"
      : entry.isFile
      ? "file"
      : "other";
    if (kind === "directory" && SKIPPED_DIRECTORIES.includes(entry.name)) {
      continue;
    }
    if (isIgnored(rules, path, kind === "directory")) continue;
    yield { path, name: entry.name, kind, depth, real: join(root, path) };
    if (kind === "directory" && depth < limits.maxDepth) {
      yield* walkDirectory(root, path, depth + 1, limits, rules);
    }
  }
}

function isIgnored(
  rules: Rules[],
  path: string,
  isDirectory: boolean,
): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { dir, matcher } = rules[i];
    const rel = dir === "" ? path : path.slice(dir.length + 1);
    let verdict: { ignored: boolean; unignored: boolean };
    try {
      verdict = matcher.test(isDirectory ? `${rel}/` : rel);
    } catch {
      continue; // a name the matcher cannot take (it throws on some) is not ignored by it
    }
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

async function loadRules(
  root: string,
  dir: string,
): Promise<Rules | undefined> {
  const file = join(root, dir, ".gitignore");
  try {
    const info = await Deno.lstat(file);
    if (!info.isFile || info.size > MAX_GITIGNORE_BYTES) return undefined;
    const opened = await openVerified(file, file); // never through a link swapped in
    const text = await new Response(opened.file.readable).text(); // closes the file
    return { dir, matcher: ignore().add(text) };
  } catch {
    return undefined;
  }
}
