/**
 * Read-only verbs, and the readers that can also write or run code: `find` (`-exec`,
 * `-delete`, `-fprint`), `awk` (`system()`, pipes, `print >`), `sed` (`-i`, `e`, `w`),
 * `sort -o`, `uniq OUT`.
 *
 * @module
 */
import { awkEffects } from "./_awk.ts";
import { has, parseOptions, type Rule, type RuleInput } from "./_rule.ts";
import { sedCommands } from "./_sed.ts";

/** Verbs that only read files, print, or change nothing outside the shell itself. */
const READ_VERBS = (
  "ls ll la dir vdir cat tac head tail less more bat batcat grep egrep fgrep zgrep ag ack " +
  "fd fdfind tree wc cut tr diff diff3 sdiff cmp comm file stat du df pwd echo printf true false : " +
  "test [ [[ which whereis type hash date cal uname hostname whoami id groups users who w last " +
  "printenv jq yq xq xxd od hexdump strings basename dirname realpath readlink " +
  "sha1sum sha224sum sha256sum sha384sum sha512sum md5sum b2sum cksum sum base64 base32 " +
  "column nl fold fmt paste join rev seq yes sleep expr bc factor numfmt ps pgrep pidof top " +
  "htop free uptime nproc lscpu lsblk lsusb lspci lsmod locale tty getconf getent ldd lsof ss " +
  "netstat man info help apropos whatis zcat bzcat xzcat zstdcat zless zmore " +
  "cd pushd popd dirs export declare local readonly typeset set unset shift read mapfile " +
  "readarray wait exit return break continue shopt let getopts umask ulimit times jobs fg bg " +
  "disown logout history caller compgen tput clear reset stty iconv shellcheck cloc tokei scc " +
  "uuidgen vmstat iostat mpstat pstree arch nm objdump readelf size lsattr dmesg"
).split(/\s+/);

function read(input: RuleInput): void {
  input.parts.add("read", "reads");
}

const FIND_VALUED = [
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-regex",
  "-iregex",
  "-type",
  "-xtype",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-size",
  "-perm",
  "-user",
  "-group",
  "-maxdepth",
  "-mindepth",
  "-newer",
  "-wholename",
  "-iwholename",
  "-lname",
  "-ilname",
  "-samefile",
  "-inum",
  "-links",
  "-uid",
  "-gid",
  "-fstype",
  "-printf",
  "-context",
  "-used",
  "-regextype",
];

function find(input: RuleInput): void {
  const { args, parts } = input;
  input.parts.add("read", "reads");
  // What find acts on: everything below each root (`DIR/…`), or, without a name or path filter
  // that spares a repository's files (`-type f` alone does not), everything including them
  // (`DIR/…!`, see `PathScope.holds`).
  const filtered = args.some((a) => /^-(i?name|i?path|i?wholename|i?regex)$/.test(a));
  const below = filtered ? "…" : "…!";
  const start = args.findIndex((a) => /^[-!(]/.test(a) && !/^-[HLP]$/.test(a));
  const roots = (start < 0 ? args : args.slice(0, start)).filter((a) => !/^-[HLP]$/.test(a));
  if (roots.length === 0) roots.push(".");
  for (let i = start < 0 ? args.length : start; i < args.length; i++) {
    const arg = args[i];
    if (FIND_VALUED.includes(arg)) {
      i++;
    } else if (/^-(exec|execdir|ok|okdir)$/.test(arg)) {
      let end = i + 1;
      while (end < args.length && args[end] !== ";" && args[end] !== "+") end++;
      const template = args.slice(i + 1, end);
      for (const root of roots) {
        input.run(
          template.map((word) => word.replaceAll("{}", `${root.replace(/\/$/, "")}/${below}`)),
        );
      }
      i = end;
    } else if (arg === "-delete") {
      for (const root of roots) parts.remove(root === "." ? `./${below}` : `${root}/${below}`);
    } else if (/^-(fprint|fprint0|fprintf|fls)$/.test(arg) && i + 1 < args.length) {
      parts.write(args[++i]);
      if (arg === "-fprintf") i++;
    }
  }
}

/** `awk`: `system()`, pipes to and from commands, `print > FILE`, `getline < FILE` (`_awk.ts`). */
function awk(input: RuleInput): void {
  const { args, parts } = input;
  const options = parseOptions(args, ["-F", "-v", "-f", "--file", "-i", "--include", "-E"]);
  const file = options.values.get("-f") ?? options.values.get("--file") ??
    options.values.get("-E") ?? options.values.get("-i") ?? options.values.get("--include");
  parts.add("read", "reads");
  if (file) {
    parts.add("code_execution", "runs an awk program file");
    return;
  }
  const program = options.operands[0];
  if (program === undefined) return;
  const effects = awkEffects(program);
  for (const command of effects.commands) {
    parts.add("code_execution", "runs a command from awk");
    parts.payload(command, "awk runs");
  }
  for (const command of effects.pipes) {
    parts.add("code_execution", "prints into a command from awk");
    // `:` stands for awk's output: a pipe whose text only the run knows.
    parts.payload(command === null ? null : `: | ${command}`, "awk runs");
  }
  for (const target of effects.writes) {
    if (target === null) parts.add("unknown", "awk writes to a file named at run time");
    else parts.write(target);
  }
  for (const target of effects.reads) if (target !== null) parts.read(target);
}

/** `sed`: `-i` edits files; `e CMD`, `s///e` run commands; `w FILE`, `s///w FILE` write; `r FILE` reads. */
function sed(input: RuleInput): void {
  const { args, parts } = input;
  const options = parseOptions(args, ["-e", "--expression", "-f", "--file", "-l", "--line-length"]);
  const scripts = [
    ...(options.values.get("-e") ?? []),
    ...(options.values.get("--expression") ?? []),
  ];
  const operands = [...options.operands];
  const fromFile = options.values.has("-f") || options.values.has("--file");
  if (scripts.length === 0 && !fromFile) {
    const first = operands.shift();
    if (first !== undefined) scripts.push(first);
  }
  if (fromFile) parts.add("code_execution", "runs a sed script file");
  const inPlace = [...options.flags].some((f) => f === "-i" || f.startsWith("--in-place")) ||
    args.some((a) => /^-[a-zA-Z]*i/.test(a) && !a.startsWith("--"));
  parts.add("read", "reads");
  if (inPlace) { for (const file of operands) parts.write(file); }
  const sinks = ["/dev/stdout", "/dev/stderr"];
  for (const { name, arg, flags } of scripts.flatMap(sedCommands)) {
    if (name === "e") {
      parts.add("code_execution", "sed runs a command");
      parts.payload(arg === "" ? null : arg, "sed runs");
    } else if ((name === "w" || name === "W") && arg !== "" && !sinks.includes(arg)) {
      parts.write(arg);
    } else if ((name === "r" || name === "R") && arg !== "") parts.read(arg);
    else if (name === "s") {
      if (/^[^w]*e/.test(flags)) parts.opaque("sed s///e runs");
      const file = /w\s*(.*)$/.exec(flags)?.[1] ?? "";
      if (file !== "" && !sinks.includes(file)) parts.write(file);
    }
  }
}

function sort(input: RuleInput): void {
  const options = parseOptions(input.args, ["-o", "--output", "-k", "-t", "-S", "-T"]);
  input.parts.add("read", "reads");
  for (
    const out of [...(options.values.get("-o") ?? []), ...(options.values.get("--output") ?? [])]
  ) {
    input.parts.write(out);
  }
}

function uniq(input: RuleInput): void {
  const options = parseOptions(input.args, ["-f", "-s", "-w"]);
  input.parts.add("read", "reads");
  if (options.operands.length > 1) input.parts.write(options.operands[1]);
}

function grep(input: RuleInput): void {
  input.parts.add("read", "reads");
  if (has(parseOptions(input.args), "--pre")) input.parts.opaque("rg --pre runs");
}

/** Add the read family to `rules`. */
export function addReadRules(rules: Map<string, Rule>): void {
  for (const verb of READ_VERBS) rules.set(verb, read);
  rules.set("find", find);
  for (const verb of ["awk", "gawk", "mawk", "nawk"]) rules.set(verb, awk);
  rules.set("sed", sed);
  rules.set("gsed", sed);
  rules.set("sort", sort);
  rules.set("uniq", uniq);
  rules.set("rg", grep);
}
