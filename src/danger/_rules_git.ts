/**
 * `git`: reading subcommands are `read`; changing the repository is a write of its directory
 * (`local_write` in the workspace); `clone`/`fetch`/`pull`/`push` reach the network; and git
 * configuration that executes (`-c alias.x=!…`, `core.pager`, `core.sshCommand`,
 * `core.fsmonitor`, `diff.external`, `ext::` URLs, `--upload-pack`) is `code_execution` with
 * its command classified (odek-go §5.1).
 *
 * @module
 */
import { gitKeyCommand, gitKeyExecutes } from "./_exec_vars.ts";
import { parseOptions, type Rule, type RuleInput } from "./_rule.ts";
import { urlHosts } from "./_rules_exec.ts";

const READ = new Set(
  ("status diff log show blame annotate ls-files ls-tree rev-parse rev-list describe shortlog reflog " +
    "grep cat-file name-rev merge-base cherry whatchanged count-objects fsck check-ignore check-attr " +
    "help version var for-each-ref show-ref symbolic-ref verify-commit verify-tag show-branch " +
    "range-diff diff-tree diff-index diff-files ls-remote-local get-tar-commit-id check-ref-format " +
    "column fmt-merge-msg interpret-trailers mailinfo patch-id stripspace")
    .split(/\s+/),
);
const WRITE = new Set(
  ("add commit checkout switch restore reset merge rebase cherry-pick revert mv rm clean apply am " +
    "format-patch gc prune notes update-index update-ref sparse-checkout commit-tree mktag " +
    "hash-object read-tree write-tree checkout-index replace rerere maintenance repack pack-refs " +
    "init restore-staged citool merge-file")
    .split(/\s+/),
);
const NETWORK = new Set(["clone", "fetch", "pull", "push", "ls-remote", "send-email"]);
const LISTING = (sub: string, rest: string[]) => {
  const operands = rest.filter((a) => !a.startsWith("-"));
  switch (sub) {
    case "branch":
      return operands.length === 0 &&
        !rest.some((a) =>
          /^-(d|D|m|M|c|C|f|u)$|^--(delete|move|copy|force|set-upstream|unset-upstream|edit-description)/
            .test(a)
        );
    case "tag":
      return operands.length === 0 || rest.some((a) => /^(-l|--list|-v|--verify)$/.test(a));
    case "stash":
      return operands[0] === "list" || operands[0] === "show";
    case "remote":
      return operands.length === 0 || ["show", "get-url"].includes(operands[0]);
    case "worktree":
      return operands[0] === "list";
    case "bisect":
      return operands[0] === "log" || operands[0] === "view" || operands[0] === "visualize";
    case "submodule":
      return operands.length === 0 || ["status", "summary"].includes(operands[0]);
    case "lfs":
      return ["ls-files", "status", "env", "version"].includes(operands[0] ?? "");
    default:
      return false;
  }
};

function configKey(input: RuleInput, key: string, value: string): void {
  if (!gitKeyExecutes(key)) return;
  input.parts.add("code_execution", `sets ${key}, which git runs`);
  const command = gitKeyCommand(key, value);
  if (command !== null) input.parts.payload(command, `${key} runs`);
}

/**
 * The command rewrites the repository's configuration (`.git/config`, a file the host runs git
 * with later): a protected write that always asks. Git writes it through a lock file beside it,
 * so the repository's directory is written too.
 */
function writesConfig(input: RuleInput, gitDir: string, file = "config"): void {
  input.parts.write(`${gitDir}/${file}`);
}

/** The programs the repository's configuration makes git run (from the core's scan). */
function repositoryPrograms(input: RuleInput, sub: string | undefined, reads: boolean): void {
  const programs = input.scope.context.repository?.programs ?? [];
  const running = programs.filter((p) => p.when === "any" || !reads);
  if (running.length === 0 || sub === "help" || sub === "version") return;
  const keys = [...new Set(running.map((p) => p.key))];
  const shown = keys.length > 4
    ? `${keys.slice(0, 4).join(", ")} and ${keys.length - 4} more`
    : keys.join(", ");
  input.parts.add(
    "code_execution",
    `the repository configures ${shown}, which git runs (${running[0].source})`,
    [...new Set(running.map((p) => p.source))],
  );
}

/** `git init` and `git clone` create a repository: its configuration and hooks. */
function createsRepository(input: RuleInput, dir: string, rest: string[]): void {
  const gitDir = `${dir.replace(/\/+$/, "") || "."}/.git`;
  const path = input.parts.resolve(gitDir);
  // Options that put chosen content into the new configuration or hooks always ask.
  const planted = rest.some((a) =>
    /^(--template|--separate-git-dir|-c|--config)(=|$)/.test(a) || /^-c./.test(a)
  );
  if (path !== null && input.scope.paths.isRepository(path) && existingRepository(input, path)) {
    return input.parts.add("destructive", "reinitialises an existing git repository", [path]);
  }
  const inWorkspace = path !== null &&
    path.startsWith(`${input.scope.paths.workspace}/`);
  if (planted || !inWorkspace) return input.parts.write(gitDir);
  // git writes the new configuration and hooks from its own templates: contained work, and the
  // scope keeps that repository (the workspace guard reverts a `.git` no call named).
  input.parts.add("local_write", "creates a git repository (from git's own templates)", [path!]);
}

function existingRepository(input: RuleInput, path: string): boolean {
  return (input.scope.context.repository?.repositories ?? []).includes(path);
}

function config(input: RuleInput, rest: string[], repo: string, gitDir: string): void {
  const options = parseOptions(rest, "-f --file --blob --type --default --comment");
  const readOnly =
    [...options.flags].some((f) =>
      /^--(get|get-all|get-regexp|get-urlmatch|list|show-origin|show-scope|name-only)$|^-l$/.test(f)
    ) || ["get", "list"].includes(options.operands[0] ?? "") ||
    (options.operands.length === 1 && !options.flags.has("--unset") &&
      !options.flags.has("--unset-all"));
  if (readOnly) return input.parts.add("read", "reads git configuration");
  const operands =
    ["set", "unset", "rename-section", "remove-section"].includes(options.operands[0] ?? "")
      ? options.operands.slice(1)
      : options.operands;
  if (operands[0] !== undefined) configKey(input, operands[0], operands[1] ?? "");
  const file = options.values.get("-f") ?? options.values.get("--file");
  if (file) input.parts.write(file[0]);
  else if (options.flags.has("--global")) {
    input.parts.write(`${input.scope.context.home}/.gitconfig`);
  } else if (options.flags.has("--system")) input.parts.write("/etc/gitconfig");
  else {
    input.parts.write(repo);
    writesConfig(input, gitDir, options.flags.has("--worktree") ? "config.worktree" : "config");
  }
}

/** The argv of a git `ext::` URL: words split on spaces; `% ` is a space, `%%` a percent. */
function extArgv(command: string): string[] {
  const words: string[] = [""];
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (c === "%" && i + 1 < command.length) {
      const next = command[++i];
      words[words.length - 1] += next === "s" || next === "S" ? "git-upload-pack" : next;
    } else if (c === " ") words.push("");
    else words[words.length - 1] += c;
  }
  return words.filter((w) => w !== "");
}

/** A repository argument that is a local path (no host, no URL but `file://`). */
function localRepository(operand: string | undefined): boolean {
  if (operand === undefined) return false;
  return /^(\/|\.\.?(\/|$)|~(\/|$)|file:\/\/)/i.test(operand);
}

function network(
  input: RuleInput,
  sub: string,
  rest: string[],
  repo: string,
  gitDir: string,
): void {
  // `-u` is `--upload-pack` for clone only (`--set-upstream` for push, a flag for fetch).
  const valued = "-o --origin -b --branch --depth --reference -j --jobs --upload-pack " +
    "--receive-pack --exec --template --separate-git-dir --filter -c --config";
  const options = parseOptions(rest, sub === "clone" ? `${valued} -u` : valued);
  for (const flag of ["--upload-pack", "-u", "--receive-pack", "--exec"]) {
    for (const command of options.values.get(flag) ?? []) {
      input.parts.add("code_execution", `${flag} names a command git runs`);
      input.parts.payload(command, `${flag} runs`);
    }
  }
  for (
    const kv of [...(options.values.get("-c") ?? []), ...(options.values.get("--config") ?? [])]
  ) {
    const eq = kv.indexOf("=");
    configKey(input, eq < 0 ? kv : kv.slice(0, eq), eq < 0 ? "" : kv.slice(eq + 1));
  }
  if (sub === "push" && options.flags.has("--set-upstream")) writesConfig(input, gitDir);
  if (sub === "push" && options.flags.has("-u")) writesConfig(input, gitDir);
  // A repository given as a local path is read (or written) as files: no network.
  const source = options.operands[0];
  if (localRepository(source) && !source!.startsWith("ext::")) {
    const local = source!.replace(/^file:\/\/(localhost)?/i, "");
    if (sub === "clone") {
      input.parts.read(local);
      const name = local.replace(/\/+$/, "").replace(/\.git$/, "").split("/").pop() || "repo";
      const dest = options.operands[1] ?? name;
      input.parts.write(dest);
      return createsRepository(input, dest, rest);
    }
    if (sub === "push") return input.parts.write(local);
    input.parts.add("read", `git ${sub} reads a local repository`, []);
    input.parts.read(local);
    if (sub === "pull" || sub === "fetch") input.parts.write(repo);
    return;
  }
  const urls = options.operands.filter((o) => /^[a-z+]+:\/\/|^[^/\s]+@[^:\s]+:|^ext::/i.test(o));
  for (const url of urls.filter((u) => u.startsWith("ext::"))) {
    input.parts.add("code_execution", "an ext:: URL runs a command");
    input.run(extArgv(url.slice(5)));
  }
  const hosts = urls.flatMap((u) =>
    urlHosts(u).length > 0 ? urlHosts(u) : [/@([^:]+):/.exec(u)?.[1] ?? ""]
  );
  input.parts.network(hosts[0] ?? "", `git ${sub} reaches a remote`);
  if (sub === "clone") {
    const source = options.operands[0] ?? "";
    const name = source.replace(/\/+$/, "").replace(/\.git$/, "").split(/[/:]/).pop() || "repo";
    const dest = options.operands[1] ?? name;
    input.parts.write(dest);
    createsRepository(input, dest, rest);
  } else if (sub === "pull" || sub === "fetch") input.parts.write(repo);
}

function git(input: RuleInput): void {
  const { args, parts } = input;
  let repo = ".";
  let gitDir: string | null = null;
  let i = 0;
  for (; i < args.length && args[i].startsWith("-"); i++) {
    const arg = args[i];
    const [flag, inline] = arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    const value = () => inline ?? args[++i] ?? "";
    if (flag === "-C") repo = value();
    else if (flag === "-c") {
      const kv = value();
      const eq = kv.indexOf("=");
      configKey(input, eq < 0 ? kv : kv.slice(0, eq), eq < 0 ? "true" : kv.slice(eq + 1));
    } else if (flag === "--config-env") {
      const key = value().split("=")[0];
      if (gitKeyExecutes(key)) parts.opaque(`${key} runs`);
    } else if (flag === "--exec-path" && inline !== undefined) {
      parts.add("code_execution", "runs git helpers from another directory");
    } else if (flag === "--git-dir" || flag === "--work-tree" || flag === "--namespace") {
      const dir = value();
      if (flag !== "--namespace") repo = dir;
      if (flag === "--git-dir") gitDir = dir;
    }
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  const dotGit = gitDir ?? `${repo.replace(/\/+$/, "") || "."}/.git`;
  if (sub === undefined) return parts.add("read", "prints git's help");
  const reads = READ.has(sub) || LISTING(sub, rest);
  repositoryPrograms(input, sub, reads);
  if (reads) {
    for (let n = 0; n < rest.length; n++) {
      const m = /^(--output|-O|--open-files-in-pager)(?:=(.*))?$/s.exec(rest[n]) ??
        (/^-O(.+)$/s.exec(rest[n]) ? [rest[n], "-O", rest[n].slice(2)] : null);
      if (!m) continue;
      const value = m[2] ?? (m[1] === "--output" ? rest[++n] : undefined);
      if (m[1] === "--output" && value !== undefined) parts.write(value);
      else if (m[1] !== "--output" && sub === "grep") {
        parts.payload(value ?? "less", "git grep -O runs");
      }
    }
    return parts.add("read", `git ${sub} reads the repository`);
  }
  if (NETWORK.has(sub)) return network(input, sub, rest, repo, dotGit);
  if (writesConfiguration(sub, rest)) writesConfig(input, dotGit);
  switch (sub) {
    case "config":
      return config(input, rest, repo, dotGit);
    case "rebase":
    case "bisect":
    case "submodule":
    case "filter-branch":
    case "difftool":
    case "mergetool": {
      const commands = rest.filter((_, n) =>
        /^(-x|--exec|--tree-filter|--index-filter|--msg-filter|--commit-filter|--env-filter|--parent-filter|--tag-name-filter|-t|--tool|--extcmd)$/
          .test(rest[n - 1] ?? "")
      );
      for (const command of commands) parts.payload(command, `git ${sub} runs`);
      if (sub === "bisect" && rest[0] === "run") input.run(rest.slice(1));
      if (sub === "submodule" && rest[0] === "foreach") {
        parts.payload(
          rest.filter((a) => !a.startsWith("-")).slice(1).join(" "),
          "git submodule foreach runs",
        );
      }
      if (sub === "submodule" && ["update", "init", "add", "sync"].includes(rest[0] ?? "")) {
        parts.network("", "git submodule reaches a remote");
      }
      if (["filter-branch", "difftool", "mergetool"].includes(sub)) {
        parts.add("code_execution", `git ${sub} runs tools`);
      }
      return parts.write(repo);
    }
    case "archive": {
      const options = parseOptions(rest, "-o --output --remote --exec --prefix --format");
      for (const out of options.values.get("-o") ?? options.values.get("--output") ?? []) {
        parts.write(out);
      }
      const remote = options.values.get("--remote");
      if (remote) parts.network(urlHosts(remote[0])[0] ?? "", "git archive reaches a remote");
      return parts.add("read", "archives the repository");
    }
    case "worktree": {
      const target = rest[0] === "add" ? rest.slice(1).find((a) => !a.startsWith("-")) : undefined;
      // A worktree's administrative files (its commondir, its gitdir link) are git configuration.
      if (target !== undefined) parts.write(`${dotGit}/worktrees`);
      return parts.write(target ?? repo);
    }
    case "lfs":
      if (["pull", "fetch", "push", "clone"].includes(rest[0] ?? "")) {
        parts.network("", "git lfs reaches a remote");
      }
      if (["install", "update", "uninstall"].includes(rest[0] ?? "")) {
        parts.write(`${dotGit}/hooks`);
        writesConfig(input, dotGit);
      }
      return parts.write(repo);
    case "hook":
      parts.add("code_execution", "git hook runs the repository's hooks");
      return parts.write(repo);
    case "init": {
      const dir = rest.find((a) => !a.startsWith("-")) ?? repo;
      parts.write(dir);
      return createsRepository(input, dir, rest);
    }
    default:
      if (WRITE.has(sub) || ["branch", "tag", "stash", "remote", "notes"].includes(sub)) {
        return parts.write(repo);
      }
      parts.add("unknown", `"git ${sub}" is not a recognised git command (it may be an alias)`);
  }
}

/**
 * Subcommands that rewrite `.git/config` besides `git config`: remotes, upstreams, branch
 * renames and copies, tracking branches, submodules.
 */
function writesConfiguration(sub: string, rest: string[]): boolean {
  const operands = rest.filter((a) => !a.startsWith("-"));
  switch (sub) {
    case "remote":
      return ["add", "set-url", "rename", "remove", "rm", "set-branches", "set-head"].includes(
        operands[0] ?? "",
      );
    case "branch":
      return rest.some((a) =>
        /^(-u|-m|-M|-c|-C|--set-upstream-to(=.*)?|--unset-upstream|--move|--copy|--edit-description)$/
          .test(a)
      );
    case "checkout":
    case "switch":
      return rest.some((a) => /^(-t|--track(=.*)?)$/.test(a));
    case "submodule":
      return ["add", "init", "update", "sync", "deinit", "absorbgitdirs", "set-url", "set-branch"]
        .includes(operands[0] ?? "");
    default:
      return false;
  }
}

/** Add `git` to `rules`. */
export function addGitRules(rules: Map<string, Rule>): void {
  rules.set("git", git);
}
