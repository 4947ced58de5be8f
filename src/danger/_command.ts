/**
 * Classifies one simple command: its redirections, its environment assignments, then its verb
 * through the rule table (wrappers unwrap and classify what they run). Every path-like argument
 * is also checked for protected roots, secrets and `/dev/tcp`.
 *
 * @module
 */
import { posix } from "node:path";
import { classifyAssignments } from "./_exec_vars.ts";
import { PartList } from "./_parts.ts";
import type { RuleInput } from "./_rule.ts";
import { RULES } from "./_rules.ts";
import { BRACE_SENTINEL, DYNAMIC, type Scope, type SimpleCommand, subjectOf } from "./_types.ts";
import type { VerdictPart } from "./verdict.ts";
import { denyPart } from "./match_deny_rules.ts";

const BIN_DIRS = new Set([
  "/bin",
  "/sbin",
  "/usr/bin",
  "/usr/sbin",
  "/usr/local/bin",
  "/usr/local/sbin",
  "/opt/homebrew/bin",
  "/usr/lib/git-core",
]);
const NO_PATHS = new Set(["echo", "printf", "true", "false", ":", "test", "[", "expr", "seq"]);

/** Classify one simple command into parts. */
export function classifySimpleCommand(command: SimpleCommand, scope: Scope): VerdictPart[] {
  const parts = new PartList(scope, subjectOf(command.text), command.cwd, command.state);
  for (const redirect of command.redirects) {
    if (redirect.mode === "write") parts.write(redirect.target);
    else parts.read(redirect.target);
  }
  classifyAssignments(command.assigns, parts);
  classifyArgv(command.argv, command, parts, scope);
  if (parts.list.length === 0 && command.argv.length > 0) parts.add("read", "reads");
  return parts.list;
}

/** The name a verb is looked up by: `/usr/bin/rm` → `rm`, `python3.12` → `python`. */
function lookupName(verb: string): string {
  const base = verb.includes("/") ? posix.basename(verb) : verb;
  return base.replace(/^(python|pip|pypy|ruby|perl|php|node|lua|gcc|g\+\+|clang)[\d.]+$/, "$1");
}

function classifyArgv(
  argv: string[],
  command: SimpleCommand,
  parts: PartList,
  scope: Scope,
): void {
  if (argv[0] === BRACE_SENTINEL) argv = argv.slice(1);
  if (argv.length === 0) return;
  denyArgv(argv, parts, scope);
  const [raw, ...args] = argv;
  if (raw.includes(DYNAMIC)) {
    parts.add("unknown", "the command name is known only at run time");
    return;
  }
  const name = lookupName(raw);
  const rule = RULES.get(name);
  if (raw.includes("/") && !BIN_DIRS.has(posix.dirname(raw))) {
    const place = scope.paths.locate(raw, parts.cwd);
    if (place.kind === "protected") {
      parts.add("blocked", "runs a program from a protected root", [place.path]);
      return;
    }
    if (!rule) {
      const local = ["workspace", "tmp"].includes(place.kind);
      if (local) parts.script(raw, "runs");
      else parts.add("unknown", "runs a program from outside the workspace", [place.path]);
      scanPaths(args, parts);
      return;
    }
  }
  if (!rule) {
    parts.add("unknown", `"${name}" is not a recognised command`);
    scanPaths(args, parts);
    return;
  }
  const input: RuleInput = {
    verb: name,
    args,
    command,
    parts,
    scope,
    run(inner, cwd) {
      classifyArgv(inner, command, cwd === undefined ? parts : parts.in(cwd), scope);
    },
  };
  rule(input);
  if (!NO_PATHS.has(name)) scanPaths(args, parts);
}

/**
 * Deny rules on this command as it runs (wrappers call back here with what they wrap): a command
 * rule on the argv, and path rules on every argument that could name a path (`secrets`,
 * `--file=secrets/x`), resolved against the command's directory. Conservative: a word that only
 * looks like a denied path is denied too, since a deny must never be missed.
 */
function denyArgv(argv: string[], parts: PartList, scope: Scope): void {
  if (scope.deny.empty) return;
  const rule = scope.deny.command(argv);
  if (rule) parts.addAll([denyPart(parts.subjectText, rule, [])]);
  if (NO_PATHS.has(lookupName(argv[0]))) return;
  for (const arg of argv.slice(1)) {
    const eq = arg.indexOf("=");
    const word = arg.startsWith("-") ? (eq > 0 ? arg.slice(eq + 1) : "") : arg;
    if (word === "" || /^[a-z][a-z0-9+.-]*:\/\//i.test(word)) continue;
    const path = parts.resolve(word);
    if (path === null) continue;
    const denied = scope.deny.path(path);
    if (denied) parts.addAll([denyPart(parts.subjectText, denied, [path])]);
  }
}

/** Escalate for any path-like argument that names a protected root, a secret or a socket. */
function scanPaths(args: string[], parts: PartList): void {
  for (const arg of args) {
    const candidates = [arg];
    const eq = arg.indexOf("=");
    if (eq > 0) candidates.push(arg.slice(eq + 1));
    if (arg.startsWith("@")) candidates.push(arg.slice(1));
    const file = /^file:\/\/(?:localhost)?(\/.*)$/i.exec(arg);
    if (file) candidates.push(decodeURIComponent(file[1]));
    for (const candidate of candidates) {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(candidate)) continue;
      if (candidate.includes("/") || candidate.startsWith(".")) parts.read(candidate);
    }
  }
}
