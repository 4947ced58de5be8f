/**
 * Wrappers: verbs that run another command (`env`, `nice`, `timeout`, `xargs`, `sudo` …). The
 * wrapped command is classified as if written alone; `sudo`, `doas`, `su`, `chroot` … add a
 * `privileged` part (odek-go §5.1 unwraps the same list).
 *
 * @module
 */
import { classifyAssignments } from "./_exec_vars.ts";
import { has, parseOptions, type Rule, type RuleInput } from "./_rule.ts";
import { DYNAMIC } from "./_types.ts";

interface WrapperSpec {
  /** Options that take a value. */
  valued?: string[];
  /** Operands before the wrapped command (`timeout DURATION`, `chroot DIR`). */
  skip?: number;
  /** Adds a `privileged` part with this detail. */
  privileged?: string;
  /** Adds another part before unwrapping. */
  extra?: (input: RuleInput) => void;
}

function wrapper(spec: WrapperSpec): Rule {
  return (input) => {
    const args = input.args.filter((arg, i) => !(i === 0 && /^-\d+$/.test(arg)));
    const options = parseOptions(args, spec.valued ?? [], true);
    if (spec.privileged) input.parts.add("privileged", spec.privileged);
    spec.extra?.(input);
    const inner = options.operands.slice(spec.skip ?? 0);
    if (inner.length > 0) input.run(inner);
    else if (!spec.privileged) input.parts.add("read", "runs nothing");
  };
}

/** `env -S` words: split on blanks, quotes removed; `${VAR}` is known only at run time. */
function splitString(text: string): string[] {
  const words = text.match(/(?:'[^']*'|"(?:\\.|[^"\\])*"|\\.|[^\s'"\\])+/g) ?? [];
  return words.map((word) =>
    word.replace(/'([^']*)'|"((?:\\.|[^"\\])*)"|\\(.)/g, (_, a, b, c) => a ?? b ?? c)
      .replace(/\$\{?\w+\}?/g, DYNAMIC)
  );
}

function env(input: RuleInput): void {
  const { args, parts } = input;
  const assigns: [string, string][] = [];
  let i = 0;
  let split: string[] = [];
  let cwd: string | null | undefined;
  for (; i < args.length; i++) {
    const arg = args[i];
    const value = /^(-[a-zA-Z]*S|--split-string=?)(.*)$/s.exec(arg);
    const dir = /^(?:-C|--chdir=?)(.*)$/s.exec(arg);
    if (value) {
      split = splitString(value[2] !== "" ? value[2] : args[++i] ?? "");
      i++;
      break;
    } else if (dir) cwd = parts.resolve(dir[1] !== "" ? dir[1] : args[++i] ?? "");
    else if (/^(-u|--unset)$/.test(arg)) i++;
    else if (arg === "--") {
      i++;
      break;
    } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
      const eq = arg.indexOf("=");
      assigns.push([arg.slice(0, eq), arg.slice(eq + 1)]);
    } else if (!arg.startsWith("-")) break;
  }
  classifyAssignments(assigns, parts);
  const inner = [...split, ...args.slice(i)];
  if (inner.length > 0) input.run(inner, cwd);
  else parts.add("read", "prints the environment");
}

/** `xargs CMD`: CMD runs with arguments read from stdin (static when the pipe's text is known). */
function xargs(input: RuleInput): void {
  const valued = ["-I", "-n", "-L", "-P", "-d", "-a", "-E", "-s", "--max-args", "--replace"]
    .concat(["--delimiter", "--arg-file", "--max-procs", "--max-lines", "--max-chars", "--eof"]);
  const args = input.args.map((a) => (a === "-0" ? "--null" : a));
  const options = parseOptions(args, valued, true);
  const template = options.operands.length > 0 ? options.operands : ["echo"];
  const stdin = input.command.stdin;
  let values: string[] = [DYNAMIC];
  if ((stdin.kind === "pipe" || stdin.kind === "text") && stdin.text !== null) {
    values = stdin.text.split(/\s+/).filter((v) => v !== "").slice(0, 64);
  } else if (stdin.kind === "pipe" && stdin.roots !== null) {
    values = stdin.roots.map((root) => `${root}/…`);
  }
  if (options.values.has("-a") || options.values.has("--arg-file")) values = [DYNAMIC];
  const replace = options.values.get("-I")?.[0] ?? options.values.get("--replace")?.[0] ??
    (has(options, "-i") ? "{}" : null);
  if (replace !== null) {
    for (const value of values.slice(0, 16)) {
      input.run(template.map((word) => word.replaceAll(replace, value)));
    }
  } else input.run([...template, ...values]);
}

/** `watch CMD…` runs its arguments joined, through `sh -c`. */
function watch(input: RuleInput): void {
  const options = parseOptions(input.args, ["-n", "--interval", "-d", "-q", "--equexit"], true);
  input.parts.payload(options.operands.join(" "), "watch runs");
}

function sudo(input: RuleInput): void {
  const valued = ["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group"]
    .concat(["--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user"]);
  const options = parseOptions(input.args, valued, true);
  input.parts.add("privileged", `runs as another user (${input.verb})`);
  const dir = options.values.get("-D") ?? options.values.get("--chdir");
  // `sudo VAR=value cmd` sets the variable for cmd.
  const assigns: [string, string][] = [];
  while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(options.operands[0] ?? "")) {
    const word = options.operands.shift()!;
    assigns.push([word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)]);
  }
  classifyAssignments(assigns, input.parts);
  if (input.verb === "sudoedit" || has(options, "-e", "--edit")) {
    for (const file of options.operands) input.parts.write(file);
  } else if (options.operands.length > 0) {
    input.run(options.operands, dir ? input.parts.resolve(dir[0]) : undefined);
  }
}

function su(input: RuleInput): void {
  const options = parseOptions(input.args, "-c --command -s --shell -g --group -G -w");
  input.parts.add("privileged", "runs as another user (su)");
  const command = options.values.get("-c") ?? options.values.get("--command");
  if (command) input.parts.payload(command[0], "su runs");
}

function flock(input: RuleInput): void {
  const options = parseOptions(
    input.args,
    "-w --timeout -E --conflict-exit-code -c --command",
    true,
  );
  const command = options.values.get("-c") ?? options.values.get("--command");
  const [lock, ...inner] = options.operands;
  if (lock !== undefined && !/^\d+$/.test(lock)) input.parts.write(lock);
  if (command) input.parts.payload(command[0], "flock runs");
  else if (inner.length > 0) input.run(inner);
}

function time(input: RuleInput): void {
  const options = parseOptions(input.args, ["-f", "--format", "-o", "--output"], true);
  for (
    const out of [...(options.values.get("-o") ?? []), ...(options.values.get("--output") ?? [])]
  ) {
    input.parts.write(out);
  }
  if (options.operands.length > 0) input.run(options.operands);
}

function command(input: RuleInput): void {
  const options = parseOptions(input.args, [], true);
  if (has(options, "-v", "-V")) input.parts.add("read", "looks up a command");
  else if (options.operands.length > 0) input.run(options.operands);
}

const PRIVILEGED = "changes root, namespaces or system services";

/** Add the wrapper family to `rules`. */
export function addWrapperRules(rules: Map<string, Rule>): void {
  rules.set("env", env);
  rules.set("xargs", xargs);
  rules.set("watch", watch);
  for (const verb of ["sudo", "sudoedit"]) rules.set(verb, sudo);
  rules.set("su", su);
  rules.set("flock", flock);
  rules.set("time", time);
  rules.set("command", command);
  const plain: [string, WrapperSpec][] = [
    ["nice", { valued: ["-n", "--adjustment"] }],
    ["nohup", {}],
    ["setsid", {}],
    ["stdbuf", { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] }],
    ["timeout", { valued: ["-s", "--signal", "-k", "--kill-after"], skip: 1 }],
    ["gtimeout", { valued: ["-s", "--signal", "-k", "--kill-after"], skip: 1 }],
    ["ionice", { valued: ["-c", "--class", "-n", "--classdata", "-t"] }],
    ["chrt", { skip: 1 }],
    ["taskset", { skip: 1 }],
    ["numactl", { valued: ["-C", "-N", "-m", "-i", "-p"] }],
    ["builtin", {}],
    ["exec", { valued: ["-a"] }],
    ["coproc", {}],
    ["unbuffer", {}],
    ["chronic", {}],
    ["caffeinate", { valued: ["-t", "-w"] }],
    ["dbus-run-session", {}],
    ["xvfb-run", { valued: ["-n", "--server-num", "-s", "--server-args", "-e", "-f", "-p"] }],
    ["busybox", {}],
    ["toybox", {}],
    ["firejail", {}],
    ["strace", {
      valued: ["-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-P", "-X"],
    }],
    ["ltrace", { valued: ["-o", "-e", "-p", "-s", "-u", "-a", "-n"] }],
    ["valgrind", {}],
    ["catchsegv", {}],
    ["doas", { valued: ["-u", "-C"], privileged: "runs as another user (doas)" }],
    ["pkexec", { valued: ["--user"], privileged: "runs as another user (pkexec)" }],
    ["run0", {
      valued: ["-u", "--user", "-g", "--group", "-D", "--chdir"],
      privileged: "runs as another user (run0)",
    }],
    ["chroot", { valued: ["--userspec", "--groups"], skip: 1, privileged: PRIVILEGED }],
    ["nsenter", { valued: ["-t", "--target", "-S", "-G", "-w", "-r"], privileged: PRIVILEGED }],
    ["unshare", {
      valued: ["--map-user", "--map-group", "--propagation", "--setgroups"],
      privileged: PRIVILEGED,
    }],
    ["systemd-run", {
      valued: [
        "-u",
        "-p",
        "-E",
        "-M",
        "-H",
        "--unit",
        "--property",
        "--setenv",
        "--slice",
        "--description",
      ],
      privileged: PRIVILEGED,
    }],
    ["proxychains", {
      valued: ["-f"],
      extra: (i) => i.parts.network("", "routes through a proxy"),
    }],
    ["proxychains4", {
      valued: ["-f"],
      extra: (i) => i.parts.network("", "routes through a proxy"),
    }],
    ["torsocks", { extra: (i) => i.parts.network("", "routes through Tor") }],
    ["tsocks", { extra: (i) => i.parts.network("", "routes through a proxy") }],
  ];
  for (const [verb, spec] of plain) rules.set(verb, wrapper(spec));
}
