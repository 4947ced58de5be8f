/**
 * The workspace's ignore rules for checkpoints: `.git/info/exclude` and every `.gitignore` on
 * the way down, matched with the npm `ignore` package (git's rules; the one eslint uses). Files
 * are read with the open-then-verify helper, never through a symlink.
 *
 * @module
 */
import ignore, { type Ignore } from "ignore";
import { readVerifiedFile } from "../_util/read_verified_file.ts";

/** Largest ignore file read, in bytes; a larger one is not used. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/** The rules of one directory. */
export interface IgnoreRules {
  /** The directory of the file, relative to the workspace (`""` for the root). */
  dir: string;
  matcher: Ignore;
}

/**
 * The rules a directory adds: its `.gitignore` (and at the root, `.git/info/exclude` first).
 *
 * @returns the rules, or `undefined` when it has none
 */
export async function loadIgnoreRules(
  workspace: string,
  dir: string,
): Promise<IgnoreRules | undefined> {
  const texts: string[] = [];
  const files = dir === "" ? [".git/info/exclude", ".gitignore"] : [`${dir}/.gitignore`];
  for (const file of files) {
    const read = await readVerifiedFile(workspace, file, { maxBytes: MAX_IGNORE_FILE_BYTES });
    if (read.type === "file" && read.size <= MAX_IGNORE_FILE_BYTES) {
      texts.push(new TextDecoder().decode(read.bytes));
    }
  }
  if (texts.length === 0) return undefined;
  return { dir, matcher: ignore().add(texts.join("\n")) };
}

/**
 * Whether `path` (relative to the workspace) is ignored: the deepest rule that decides wins, as
 * in git.
 */
export function isIgnored(
  rules: readonly IgnoreRules[],
  path: string,
  directory: boolean,
): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { dir, matcher } = rules[i];
    const rel = dir === "" ? path : path.slice(dir.length + 1);
    let verdict: { ignored: boolean; unignored: boolean };
    try {
      verdict = matcher.test(directory ? `${rel}/` : rel);
    } catch {
      continue; // a name the matcher cannot take is not ignored by it
    }
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}
