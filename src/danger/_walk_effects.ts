/**
 * What a simple command changes in the shell that later commands see: the directory (`cd`,
 * `pushd`), variables (assignments, `read`, `printf -v`, `declare -n`), and the content of
 * files it wrote (`echo … > run.sh`, `cat > x.sh <<EOF`, `… | tee x.sh`), so that
 * `bash run.sh` or `source x.sh` later in the same command is classified by what it runs.
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import { staticOutput } from "./_static_output.ts";
import { DYNAMIC, type Scope, type SimpleCommand, type Stdin } from "./_types.ts";
import type { WalkState } from "./_walk_state.ts";
import type { WordEvaluator } from "./_word.ts";
import type { VerdictPart } from "./verdict.ts";

const NONE: Stdin = { kind: "none" };

/** The pseudo-command of an assignment statement (`X=1`, `export X=$(…)`, `unset X`). */
export function assignmentCommand(node: Node, st: WalkState, words: WordEvaluator): SimpleCommand {
  const assigns: [string, string][] = [];
  const flags = node.type === "declaration_command"
    ? node.namedChildren.filter((c) => c?.type === "word").map((c) => c!.text)
    : [];
  const nameref = flags.some((f) => /^-[a-zA-Z]*n/.test(f));
  const visit = (n: Node) => {
    if (n.type === "variable_assignment") {
      const name = n.childForFieldName("name")?.text ?? "";
      const values = words.values(n.childForFieldName("value"));
      const known = !nameref && !values.some((v) => v.includes(DYNAMIC));
      if (name === "IFS") st.ifs = known ? values[0] : " \t\n";
      else st.vars.set(name.replace(/\[.*$/, ""), known ? values : null);
      for (const value of values) assigns.push([name, value]);
    } else if (n.type === "variable_name") {
      st.vars.set(n.text, node.type === "unset_command" ? [""] : null);
    } else if (n.type === "variable_assignments") {
      for (const child of n.namedChildren) if (child) visit(child);
    } else words.fields([n]);
  };
  if (node.type === "variable_assignment") visit(node);
  else for (const child of node.namedChildren) if (child) visit(child);
  return { argv: [], assigns, text: node.text, cwd: st.cwd, stdin: NONE, redirects: [], state: st };
}

/** The argv without `builtin`/`command` in front (they run the same builtin). */
function unwrap(argv: string[]): string[] {
  let i = 0;
  while (argv[i] === "builtin" || (argv[i] === "command" && !/^-[vV]/.test(argv[i + 1] ?? ""))) i++;
  return argv.slice(i);
}

function readTargets(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (/^-[adnNptu]$/.test(args[i])) {
      if (args[i] === "-a") out.push(args[i + 1] ?? "");
      i++;
    } else if (!args[i].startsWith("-")) out.push(args[i]);
  }
  return out;
}

function trackVariables(verb: string, args: string[], st: WalkState): void {
  if (verb === "read" || verb === "mapfile" || verb === "readarray") {
    const targets = readTargets(args);
    if (targets.length === 0) targets.push(verb === "read" ? "REPLY" : "MAPFILE");
    for (const name of targets) st.vars.set(name, null);
  } else if (verb === "getopts" && args[1] !== undefined) st.vars.set(args[1], null);
  else if (verb === "printf" && args[0] === "-v" && args[1] !== undefined) {
    st.vars.set(args[1].replace(/\[.*$/, ""), null);
  }
}

function trackDirectory(verb: string, args: string[], st: WalkState, scope: Scope): void {
  const operands = args.filter((a) => !/^-[LPe@]+$/.test(a));
  if (verb === "popd" || operands[0] === "-") st.cwd = null;
  else if (operands.length === 0) st.cwd = verb === "cd" ? scope.context.home : null;
  else st.cwd = scope.paths.resolve(operands[0], st.cwd);
}

/** Verbs whose writes keep a file's content (mode, owner, times). */
const KEEPS_CONTENT = new Set(["chmod", "chown", "chgrp", "touch", "chattr", "setfacl"]);

/** Record the files `command` wrote with content known from its source. */
function trackFiles(command: SimpleCommand, parts: VerdictPart[], scope: Scope): void {
  const { files } = command.state;
  const [verb, ...args] = unwrap(command.argv);
  const written = new Map<string, string | null>();
  const put = (raw: string, text: string | null, append: boolean) => {
    const path = scope.paths.resolve(raw, command.cwd);
    if (path === null) return;
    const before = append ? (written.get(path) ?? files.get(path)) : "";
    written.set(
      path,
      text === null || before === undefined || before === null ? null : before + text,
    );
  };
  const out = staticOutput(command);
  for (const redirect of command.redirects) {
    if (redirect.mode === "write") put(redirect.target, out, redirect.append);
  }
  if (verb === "tee") {
    const stdin = command.stdin;
    const text = stdin.kind === "pipe" || stdin.kind === "text" ? stdin.text : null;
    const append = args.some((a) => /^-[a-z]*a|^--append$/.test(a));
    for (const file of args.filter((a) => !a.startsWith("-"))) put(file, text, append);
  }
  if (!KEEPS_CONTENT.has(verb ?? "")) {
    for (const part of parts) for (const target of part.targets) files.delete(target);
  }
  for (const [path, text] of written) {
    if (text === null) files.delete(path);
    else files.set(path, text);
  }
}

/** Apply what `command` changes in its shell (`command.state`). */
export function applyEffects(command: SimpleCommand, parts: VerdictPart[], scope: Scope): void {
  const st = command.state;
  trackFiles(command, parts, scope);
  const [verb, ...args] = unwrap(command.argv);
  if (verb === "cd" || verb === "pushd" || verb === "popd") trackDirectory(verb, args, st, scope);
  else if (verb !== undefined) trackVariables(verb, args, st);
}
