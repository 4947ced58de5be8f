/**
 * Reading a repository's own configuration in the core (private to `broker/`): `.git/config`,
 * `config.worktree` and every file they include (`[include]`, `[includeIf]`, followed whatever
 * the condition), through the open-then-verify reader, never by running git (design §8.7). The
 * result says which programs the repository configures (`REPO_PROGRAM_KEYS`), where its hooks
 * live, and which included files lie inside the workspace (those are protected).
 *
 * @module
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { readVerifiedFileSync } from "../_util/read_verified_file.ts";
import { parseGitConfig } from "../danger/parse_git_config.ts";
import { type RepoProgram, repoProgramKey } from "../danger/repo_programs.ts";

/** What one repository's configuration says. */
export interface RepoConfig {
  /** The git directory (`<worktree>/.git`, or where a `.git` file points). */
  gitDir: string;
  /** Every configuration file read (the repository's and the included ones), absolute. */
  files: string[];
  /** The programs it configures (keys, then hooks). */
  programs: RepoProgram[];
  /** Where git runs hooks from: `core.hooksPath` resolved, else `<gitDir>/hooks`. */
  hooksDir: string;
}

/** Bytes read of one configuration file at most (git's own files are small). */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Include depth git itself allows. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * Read the configuration of the repository whose working tree is `worktree` and whose `.git`
 * entry is `dotGit` (a directory, or a file naming the git directory).
 *
 * @param worktree the repository's top directory
 * @param dotGit its `.git` (absolute)
 * @param home the user's home (`~/` in include paths and `core.hooksPath`)
 * @returns what it configures; `null` when `dotGit` is neither a readable directory nor a
 *   `gitdir:` file
 */
export function readRepoConfig(worktree: string, dotGit: string, home: string): RepoConfig | null {
  const gitDir = resolveGitDir(dotGit);
  if (gitDir === null) return null;
  const files: string[] = [];
  const programs: RepoProgram[] = [];
  let hooksPath: string | null = null;
  let worktreeConfig = false;
  const read = (file: string, depth: number) => {
    if (depth > MAX_INCLUDE_DEPTH || files.includes(file)) return;
    const text = readText(file);
    if (text === null) return;
    files.push(file);
    if (typeof text !== "string") {
      // A link or a swapped file: git would read through it, odek does not. Count it as a program.
      programs.push({
        key: `unreadable configuration (${text.refused})`,
        source: file,
        when: "any",
      });
      return;
    }
    const parsed = parseGitConfig(text);
    if (parsed.error !== undefined) {
      // git refuses such a file (so runs nothing from it); say so rather than read half of it.
      programs.push({
        key: `unreadable configuration (${parsed.error})`,
        source: file,
        when: "any",
      });
    }
    for (const { key, value } of parsed.entries) {
      const program = repoProgramKey(key, value);
      if (program) programs.push({ key, source: file, when: program.when });
      if (key === "core.hookspath") hooksPath = value;
      if (key === "extensions.worktreeconfig" && /^(true|yes|on|1)$/i.test(value)) {
        worktreeConfig = true;
      }
      if (/^include(if\..*)?\.path$/.test(key) && value !== "") {
        const path = value.startsWith("~/") ? join(home, value.slice(2)) : value;
        read(isAbsolute(path) ? resolve(path) : resolve(dirname(file), path), depth + 1);
      }
    }
  };
  const common = commonDir(gitDir);
  read(join(common, "config"), 0);
  if (worktreeConfig) read(join(gitDir, "config.worktree"), 0);
  const configured = hooksPath as string | null;
  const hooksDir = configured === null || configured === ""
    ? join(common, "hooks")
    : configured.startsWith("~/")
    ? join(home, configured.slice(2))
    : resolve(worktree, configured);
  for (const hook of executableHooks(hooksDir)) {
    programs.push({ key: `hook ${hook}`, source: hooksDir, when: "write" });
  }
  return { gitDir, files, programs, hooksDir };
}

/** The git directory a `.git` entry names: itself, or the target of a `gitdir:` file. */
function resolveGitDir(dotGit: string): string | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dotGit);
  } catch {
    return null;
  }
  if (info.isDirectory) return dotGit;
  if (!info.isFile) return null;
  const text = textOf(dotGit);
  const match = text === null ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!match) return null;
  return isAbsolute(match[1]) ? resolve(match[1]) : resolve(dirname(dotGit), match[1]);
}

/** A worktree's git directory shares its configuration with the one its `commondir` names. */
function commonDir(gitDir: string): string {
  const text = textOf(join(gitDir, "commondir"));
  if (text === null || text.trim() === "") return gitDir;
  const named = text.trim();
  return isAbsolute(named) ? resolve(named) : resolve(gitDir, named);
}

/** The file's text; `null` when it is missing; `{ refused }` when it exists but was not read. */
function readText(file: string): string | null | { refused: string } {
  try {
    const read = readVerifiedFileSync("/", file, { maxBytes: MAX_CONFIG_BYTES });
    if (read.type === "missing") return null;
    return read.type === "file" ? new TextDecoder().decode(read.bytes) : { refused: read.reason };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

function textOf(file: string): string | null {
  const text = readText(file);
  return typeof text === "string" ? text : null;
}

/** Hooks git would run: executable regular files, not `*.sample`. */
function executableHooks(dir: string): string[] {
  const out: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.name.endsWith(".sample") || entry.name.startsWith(".")) continue;
      const info = Deno.statSync(join(dir, entry.name));
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) out.push(entry.name);
    }
  } catch {
    // No hooks directory.
  }
  return out.sort();
}
