/**
 * Verbs that run code: shells (`-c` payloads are parsed and classified; a shell reading a pipe
 * runs that pipe's text), `eval`, `source`, `trap`, `alias`, and language interpreters. Code
 * only known at run time (`base64 -d | sh`, `bash <(curl …)`) is `code_execution` + `network`.
 *
 * @module
 */
import { embeddedCommands } from "./_inline_code.ts";
import type { Rule, RuleInput } from "./_rule.ts";
import { DYNAMIC } from "./_types.ts";

const VERSION_FLAGS = /^(-v|-V|--version|-h|--help|-help|-version|--help-all)$/;

/** Hosts named by URLs in `text`. */
export function urlHosts(text: string): string[] {
  const hosts: string[] = [];
  for (
    const m of text.matchAll(
      /\b(?:https?|ftp|wss?):\/\/(?:[^@/\s'"]*@)?(\[[^\]]+\]|[^/:\s'"?#)]+)/gi,
    )
  ) {
    hosts.push(m[1].toLowerCase());
  }
  return hosts;
}

/** Paths that name the command's own standard input. */
const STDIN_PATHS = /^(\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0)$/;

function stdinPayload(input: RuleInput, how: string, asShell: boolean, inShell = false): void {
  const stdin = input.command.stdin;
  if (stdin.kind === "pipe" || stdin.kind === "text") {
    if (asShell) input.parts.payload(stdin.text, how, inShell);
    else if (stdin.text === null) input.parts.opaque(how);
    else inlineCode(input, stdin.text, how);
  } else if (stdin.kind === "file") {
    if (asShell) input.parts.script(stdin.path, how, inShell);
    else {
      input.parts.add("code_execution", `${how} a script file`);
      input.parts.read(stdin.path);
    }
  } else input.parts.add("code_execution", `${how} an interactive session`);
}

/** Inline code of an interpreter: `code_execution`, plus the URLs and shell commands it names. */
function inlineCode(input: RuleInput, code: string, how: string): void {
  input.parts.add("code_execution", `${how} inline code`);
  for (const host of urlHosts(code)) input.parts.network(host);
  for (const command of embeddedCommands(input.verb, code)) input.parts.payload(command, how);
}

/** A shell runs the script `path` (in this shell for `source`). */
function runScript(input: RuleInput, path: string, how: string, inShell = false): void {
  if (STDIN_PATHS.test(path)) stdinPayload(input, how, true, inShell);
  else input.parts.script(path, how, inShell);
}

/** `sh`, `bash`, `zsh` …: `-c STRING` is parsed as a script; a file runs; stdin runs. */
function shell(input: RuleInput): void {
  const { args, verb } = input;
  let commandMode = false;
  let stdinMode = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--" || arg === "-") {
      i++;
      break;
    }
    if (/^[-+][oO]$/.test(arg) || arg === "--rcfile" || arg === "--init-file") i++;
    else if (/^-[a-zA-Z]+$/.test(arg)) {
      if (arg.includes("c")) commandMode = true;
      if (arg.includes("s")) stdinMode = true;
    } else if (!/^(--|\+)/.test(arg)) break;
  }
  const operands = args.slice(i);
  if (commandMode) {
    if (operands.length === 0) input.parts.add("unknown", `${verb} -c without a command`);
    else input.parts.payload(operands[0], `${verb} -c runs`);
  } else if (operands.length > 0 && !stdinMode) runScript(input, operands[0], `${verb} runs`);
  else stdinPayload(input, `${verb} runs`, true);
}

function evalRule(input: RuleInput): void {
  input.parts.payload(input.args.join(" "), "eval runs", true);
}

function source(input: RuleInput): void {
  const script = input.args[0];
  if (script === undefined) input.parts.add("unknown", "source without a file");
  else runScript(input, script, "source runs", true);
}

function trap(input: RuleInput): void {
  const [action, ...signals] = input.args;
  if (action === undefined || /^-[lp]+$/.test(action) || action === "-" || signals.length === 0) {
    input.parts.add("read", "lists or resets traps");
  } else input.parts.payload(action, "trap runs");
}

function alias(input: RuleInput): void {
  for (const arg of input.args) {
    const eq = arg.indexOf("=");
    if (eq > 0) input.parts.payload(arg.slice(eq + 1), "alias runs");
  }
  if (input.parts.list.length === 0) input.parts.add("read", "lists aliases");
}

interface InterpreterSpec {
  /** Options whose value is inline code. */
  inline: string[];
  /** Options that take a (non-code) value. */
  valued?: string[];
}

const INTERPRETERS: Record<string, InterpreterSpec> = {
  node: {
    inline: ["-e", "--eval", "-p", "--print"],
    valued: [
      "-r",
      "--require",
      "--import",
      "--loader",
      "-C",
      "--conditions",
      "--env-file",
      "--input-type",
    ],
  },
  nodejs: { inline: ["-e", "--eval", "-p", "--print"], valued: ["-r", "--require", "--import"] },
  python: { inline: ["-c"], valued: ["-W", "-X", "--check-hash-based-pycs"] },
  python2: { inline: ["-c"], valued: ["-W", "-X"] },
  python3: { inline: ["-c"], valued: ["-W", "-X"] },
  pypy: { inline: ["-c"], valued: ["-W", "-X"] },
  pypy3: { inline: ["-c"], valued: ["-W", "-X"] },
  perl: { inline: ["-e", "-E"], valued: ["-I", "-M", "-m", "-x"] },
  ruby: { inline: ["-e"], valued: ["-I", "-r", "-C", "-E"] },
  php: { inline: ["-r", "-B", "-R", "-E", "-F"], valued: ["-c", "-d", "-t", "-z"] },
  lua: { inline: ["-e"], valued: ["-l"] },
  luajit: { inline: ["-e"], valued: ["-l", "-b", "-j", "-O"] },
  Rscript: { inline: ["-e", "--expr"] },
  R: { inline: ["-e"] },
  julia: { inline: ["-e", "--eval", "-E", "--print"], valued: ["-p", "-t", "--project"] },
  tclsh: { inline: [] },
  expect: { inline: ["-c"] },
  osascript: { inline: ["-e"] },
  pwsh: { inline: ["-c", "-Command", "-command", "-EncodedCommand", "-e"] },
  powershell: { inline: ["-c", "-Command", "-command", "-EncodedCommand", "-e"] },
  groovy: { inline: ["-e"] },
  java: {
    inline: [],
    valued: ["-cp", "-classpath", "--class-path", "-p", "--module-path", "-m", "--module"],
  },
  elixir: { inline: ["-e", "--eval"], valued: ["-r", "-pa", "-pz"] },
  erl: { inline: ["-eval", "-s", "-run"] },
  escript: { inline: [] },
  guile: { inline: ["-c", "-e"] },
  racket: { inline: ["-e"] },
  dart: { inline: [] },
  gjs: { inline: ["-c"] },
};

/** A language interpreter: inline code or a script runs (`code_execution`, contained). */
function interpreter(input: RuleInput): void {
  const { args, parts, verb } = input;
  const spec = INTERPRETERS[verb];
  if (args.length > 0 && args.every((a) => VERSION_FLAGS.test(a))) {
    parts.add("read", "prints its version");
    return;
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const inline = spec.inline.find((flag) =>
      arg === flag || (flag.length === 2 && arg.startsWith(flag) && !arg.startsWith("--"))
    );
    if (inline !== undefined) {
      const code = arg === inline ? args[i + 1] ?? "" : arg.slice(inline.length);
      if (code.includes(DYNAMIC)) parts.opaque(`${verb} runs`);
      else inlineCode(input, code, `${verb} runs`);
      return;
    }
    if (/^python|^pypy/.test(verb) && arg === "-m") {
      const [module, ...rest] = args.slice(i + 1);
      if (module === "pip" || module === "pip3") input.run(["pip", ...rest]);
      else if (module === "venv" || module === "virtualenv") {
        for (const dir of rest.filter((a) => !a.startsWith("-"))) parts.write(dir);
      } else parts.add("code_execution", `${verb} runs the module ${module ?? ""}`.trim());
      return;
    }
    if (spec.valued?.includes(arg)) i++;
    else if (arg === "-") break;
    else if (!arg.startsWith("-")) {
      if (STDIN_PATHS.test(arg)) break;
      const path = parts.resolve(arg);
      const content = path === null ? undefined : input.command.state.files.get(path);
      if (arg.includes(DYNAMIC) || content === null) parts.opaque(`${verb} runs`);
      else if (content !== undefined) inlineCode(input, content, `${verb} runs`);
      else {
        parts.add("code_execution", `${verb} runs the script ${arg}`);
        parts.read(arg);
      }
      for (const host of args.slice(i + 1).flatMap(urlHosts)) parts.network(host);
      return;
    }
  }
  stdinPayload(input, `${verb} runs`, false);
}

/** Add the code-running family to `rules`. */
export function addExecRules(rules: Map<string, Rule>): void {
  for (
    const verb of [
      "sh",
      "bash",
      "zsh",
      "dash",
      "ksh",
      "mksh",
      "ash",
      "fish",
      "csh",
      "tcsh",
      "yash",
      "rbash",
    ]
  ) {
    rules.set(verb, shell);
  }
  rules.set("eval", evalRule);
  rules.set("source", source);
  rules.set(".", source);
  rules.set("trap", trap);
  rules.set("alias", alias);
  for (const verb of Object.keys(INTERPRETERS)) rules.set(verb, interpreter);
}
