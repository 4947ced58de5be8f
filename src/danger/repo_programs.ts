/**
 * The one table of git configuration keys through which a repository makes git run a program
 * (issue 13): the classifier turns each one the workspace's repository sets into a
 * `code_execution` part of every git command there, and the broker neutralises the fixed-name
 * ones by environment for read-scope programs (`src/broker/_git_neutral_env.ts`).
 *
 * @module
 */

/** One key of {@linkcode REPO_PROGRAM_KEYS}. */
export interface RepoProgramKey {
  /** The key as git documents it; `<x>` is a variable part, e.g. `diff.<driver>.textconv`. */
  readonly name: string;
  /** Matches the key, lower-cased, as `section[.subsection].name`. */
  readonly pattern: RegExp;
  /** What git runs it for, for the operator and the model. */
  readonly runs: string;
  /**
   * Whether git reads it for every command (`any`: a pager, fsmonitor on `status`) or only when
   * a command changes the repository (`write`: hooks run by `commit`, `checkout`, `merge` …).
   */
  readonly when: "any" | "write";
  /**
   * The value that makes a fixed-name key harmless (git reads the environment's
   * `GIT_CONFIG_KEY_n` over the repository's). Absent for keys with a variable part.
   */
  readonly neutral?: string;
}

const key = (
  name: string,
  runs: string,
  options: { when?: "any" | "write"; neutral?: string; pattern?: RegExp } = {},
): RepoProgramKey =>
  Object.freeze({
    name,
    pattern: options.pattern ?? new RegExp(`^${name.toLowerCase().replaceAll(".", "\\.")}$`),
    runs,
    when: options.when ?? "any",
    ...(options.neutral !== undefined ? { neutral: options.neutral } : {}),
  });

/** The keys, fixed-name ones first. Each has a test at `untrusted` and `standard`. */
export const REPO_PROGRAM_KEYS: readonly RepoProgramKey[] = Object.freeze([
  key("core.pager", "the pager of every command that pages", { neutral: "cat" }),
  key("core.fsmonitor", "a file-system monitor on status, diff and add", { neutral: "false" }),
  key("diff.external", "an external diff program", { neutral: "false" }),
  key("core.sshCommand", "the ssh command of fetch, pull and push", { neutral: "ssh" }),
  key("core.editor", "the editor of commit messages and edits", { neutral: "false" }),
  key("sequence.editor", "the editor of interactive rebases", { neutral: "false" }),
  key("gpg.program", "the signing and verifying program", { neutral: "gpg" }),
  key("gpg.ssh.program", "the ssh signing program", { neutral: "ssh-keygen" }),
  key("gpg.x509.program", "the x509 signing program", { neutral: "gpgsm" }),
  key("credential.helper", "a credential helper", { neutral: "" }),
  key("core.askPass", "the password prompt program", { neutral: "" }),
  key("core.hooksPath", "hooks from another directory", { when: "write", neutral: "/dev/null" }),
  key("interactive.diffFilter", "the filter of interactive adds", { neutral: "cat" }),
  key("core.gitProxy", "a proxy command for git:// fetches"),
  key("core.alternateRefsCommand", "a command listing alternate refs"),
  key("pager.<command>", "the pager of one command", { pattern: /^pager\.[^.]+$/ }),
  key("diff.<driver>.textconv", "a text conversion of files the attributes name", {
    pattern: /^diff\..+\.textconv$/,
  }),
  key("diff.<driver>.command", "an external diff of files the attributes name", {
    pattern: /^diff\..+\.command$/,
  }),
  key("merge.<driver>.driver", "a merge driver of files the attributes name", {
    pattern: /^merge\..+\.driver$/,
  }),
  key("filter.<driver>.clean/smudge/process", "a filter run on checkout, add and status", {
    pattern: /^filter\..+\.(clean|smudge|process)$/,
  }),
  key("credential.<url>.helper", "a credential helper for one URL", {
    pattern: /^credential\..+\.helper$/,
  }),
  key("remote.<name>.uploadpack/receivepack", "the program run on the remote side", {
    pattern: /^remote\..+\.(uploadpack|receivepack)$/,
  }),
  key("submodule.<name>.update", "a command run by submodule update (when it starts with !)", {
    pattern: /^submodule\..+\.update$/,
    when: "write",
  }),
  key("trailer.<token>.command/cmd", "a command adding commit trailers", {
    pattern: /^trailer\..+\.(command|cmd)$/,
  }),
  key("difftool.<tool>.cmd / mergetool.<tool>.cmd", "a diff or merge tool", {
    pattern: /^(difftool|mergetool)\..+\.cmd$/,
  }),
  key("alias.<name> (starting with !)", "a shell command run as a git subcommand", {
    pattern: /^alias\.[^.]+$/,
  }),
]);

/** One program the workspace's repository configures (found by `readRepoPrograms`). */
export interface RepoProgram {
  /** The key as found (`core.fsmonitor`, `diff.lfs.textconv`), or `hook <name>`. */
  key: string;
  /** Where it is set: the configuration file or the hooks directory. */
  source: string;
  /** When git runs it: every command, or only commands that change the repository. */
  when: "any" | "write";
}

/**
 * The entry of {@linkcode REPO_PROGRAM_KEYS} a configuration key matches, taking its value into
 * account (an alias runs a program only when it starts with `!`; a submodule update only when
 * it does), or `undefined`.
 *
 * @param name the key as `section[.subsection].name` (any case)
 * @param value its value (`true` for a key written without one)
 * @returns the table entry, or `undefined` when the key runs nothing
 *
 * @example
 * ```ts
 * import { repoProgramKey } from "./repo_programs.ts";
 * if (repoProgramKey("core.fsmonitor", "./watch")?.name !== "core.fsmonitor") throw new Error();
 * if (repoProgramKey("alias.st", "status") !== undefined) throw new Error("a plain alias runs nothing");
 * ```
 */
export function repoProgramKey(name: string, value: string): RepoProgramKey | undefined {
  const lower = name.toLowerCase();
  if (/^(alias|submodule)\./.test(lower) && !value.trimStart().startsWith("!")) return undefined;
  // An empty or false fsmonitor, pager or helper runs nothing (a reset, or git's own default).
  if (
    /^(core\.fsmonitor|core\.pager|pager\..*)$/.test(lower) && /^(|false|no|off|0)$/i.test(value)
  ) {
    return undefined;
  }
  if (/^credential\.(.+\.)?helper$/.test(lower) && value === "") return undefined;
  return REPO_PROGRAM_KEYS.find((k) => k.pattern.test(lower));
}
