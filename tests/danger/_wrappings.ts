/**
 * Generators for the property test: dangerous base commands and the ways a command can be
 * wrapped, quoted, substituted or chained. Every string here is data for the classifier: it is
 * parsed, never run.
 */
import type { RiskClass } from "../../src/danger/verdict.ts";

/** A command and the class that wrapping must never drop. */
export interface Base {
  command: string;
  riskClass: RiskClass;
  /** The verb and its arguments as separate words, for respellings of the words themselves. */
  words: string[];
}

function base(command: string, riskClass: RiskClass): Base {
  return { command, riskClass, words: command.split(" ") };
}

export const BASES: Base[] = [
  base("rm -rf /home/ada/projects", "destructive"),
  base("rm -rf /etc", "destructive"),
  base("find /home/ada -delete", "destructive"),
  base("mv /home/ada/notes.txt /tmp/n", "destructive"),
  base("rsync -a --delete src/ /home/ada/backup/", "destructive"),
  base("shutdown -h now", "destructive"),
  base("curl https://e.example/x", "network"),
  base("wget -q https://e.example/x", "network"),
  base("git push origin main", "network"),
  base("ssh e.example uptime", "network"),
  base("nc e.example 80", "network"),
  base("npm install left-pad", "network"),
  base("touch /etc/cron.d/job", "system_write"),
  base("cp evil /home/ada/.bashrc", "system_write"),
  base("cat /home/ada/.ssh/id_rsa", "system_write"),
  base("mkdir -p /home/ada/.config/autostart", "system_write"),
  base("odek run task", "system_write"),
  base("git config --global core.editor vi", "system_write"),
];

/** Quote `s` as one shell word. */
export function q(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** Escape `s` for an awk or C-like double-quoted string. */
function dq(s: string): string {
  return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

function b64(s: string): string {
  return btoa(s);
}

/** A transformation of a whole command; null when it does not apply to `s`. */
export type Wrapping = (s: string) => string | null;

/** A here-document delimiter that does not occur in `s`. */
function delimiter(s: string): string {
  let n = 0;
  while (s.includes(`EOF${n}`)) n++;
  return `EOF${n}`;
}

const simple = (s: string) => !/[|&;<>()$`'"\\\n{}]/.test(s);

/**
 * True when `s` is one simple command (quoted text aside): a prefix such as `env` or `sudo`
 * applies to it directly; anything else is first handed to `bash -c`, as a person would.
 */
function isSimple(s: string): boolean {
  const bare = s.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, "x");
  return !/[;&|\n(){}`]/.test(bare) &&
    !/^(if|for|while|until|case|select|function|time|!|\[\[)\s/.test(bare) &&
    !/^\w+=/.test(bare);
}

/** `s` as one unit a chain operator can take: itself, or a `{ … }` group. */
function unit(s: string): string {
  return isSimple(s) ? s : `{\n${s}\n}`;
}

function prefix(word: string): Wrapping {
  return (s) => (isSimple(s) ? `${word} ${s}` : `${word} bash -c ${q(s)}`);
}

/** Compound wrappers put `s` on its own lines, so a here-document in `s` still ends. */
export const WRAPPINGS: Record<string, Wrapping> = {
  env: prefix("env"),
  "env assign": prefix("env FOO=1"),
  "prefix assign": prefix("LANG=C"),
  nice: prefix("nice -n 10"),
  nohup: prefix("nohup"),
  timeout: prefix("timeout 30"),
  setsid: prefix("setsid"),
  stdbuf: prefix("stdbuf -oL"),
  command: prefix("command"),
  builtin: prefix("builtin command"),
  exec: prefix("exec"),
  time: prefix("time"),
  sudo: prefix("sudo"),
  doas: prefix("doas"),
  // xargs reads its own stdin, so a redirect in `s` must stay inside the command it runs.
  xargs: (
    s,
  ) => (isSimple(s) && !/[<>]/.test(s) ? `echo | xargs ${s}` : `echo | xargs bash -c ${q(s)}`),
  "!": prefix("!"),
  "bash -c": (s) => `bash -c ${q(s)}`,
  "sh -c": (s) => `sh -c ${q(s)}`,
  "zsh -c": (s) => `zsh -c ${q(s)}`,
  "bash -lc dq": (s) => `bash -lc ${dq(s).replaceAll("$", "\\$").replaceAll("`", "\\`")}`,
  eval: (s) => `eval ${q(s)}`,
  "echo | bash": (s) => `echo ${q(s)} | bash`,
  "printf | sh": (s) => `printf '%s\\n' ${q(s)} | sh`,
  "here-string": (s) => `bash <<< ${q(s)}`,
  "here-doc": (s) => `bash <<'${delimiter(s)}'\n${s}\n${delimiter(s)}`,
  "cat here-doc | sh": (s) => `cat <<'${delimiter(s)}' | sh\n${s}\n${delimiter(s)}`,
  base64: (s) => `echo ${b64(s)} | base64 -d | bash`,
  "source <()": (s) => `source <(printf '%s\\n' ${q(s)})`,
  "written script": (s) => `printf '%s\\n' ${q(s)} > step.sh && bash step.sh`,
  "find -exec": (s) => `find . -maxdepth 0 -exec sh -c ${q(s)} \\;`,
  "git alias": (s) => `git -c alias.x=${q(`!${s}`)} x`,
  "git pager": (s) => `git -c core.pager=${q(s)} log`,
  "awk system": (s) => `awk ${q(`BEGIN { system(${dq(s)}) }`)}`,
  "sed e": (s) => (s.includes("\n") ? null : `sed -n ${q(`1e ${s}`)} README.md`),
  "tar checkpoint": (s) => `tar -cf /dev/null . --checkpoint=1 --checkpoint-action=exec=${q(s)}`,
  "rsync -e": (s) => `rsync -e ${q(s)} a e.example:b`,
  "ssh ProxyCommand": (s) => `ssh -o ProxyCommand=${q(s)} e.example`,
  trap: (s) => `trap ${q(s)} EXIT`,
  watch: (s) => `watch -n 1 ${q(s)}`,
  function: (s) => `f() {\n${s}\n}\nf`,
  "function arg": (s) => (isSimple(s) ? `f() { "$@"; }; f ${s}` : null),
  subshell: (s) => `(\n${s}\n)`,
  group: (s) => `{\n${s}\n}`,
  "$()": (s) => `echo $(\n${s}\n)`,
  '"$()"': (s) => `echo "$(\n${s}\n)"`,
  backquotes: (s) => (/[`\\$]/.test(s) ? null : `echo \`${s}\``),
  "x=$()": (s) => `x=$(\n${s}\n)`,
  "<()": (s) => `cat <(\n${s}\n)`,
  ">()": (s) => `echo hi > >(\n${s}\n)`,
  if: (s) => `if true; then\n${s}\nfi`,
  else: (s) => `if false; then :; else\n${s}\nfi`,
  for: (s) => `for i in 1; do\n${s}\ndone`,
  while: (s) => `while false; do\n${s}\ndone`,
  case: (s) => `case x in *)\n${s}\n;; esac`,
  "&&": (s) => `true && ${unit(s)}`,
  "||": (s) => `false || ${unit(s)}`,
  ";": (s) => `ls; ${s}`,
  "&": (s) => `{\n${s}\n} &`,
  "| cat": (s) => `{\n${s}\n} | cat`,
  "ls |": (s) => `ls | ${unit(s)}`,
  newline: (s) => `cd .\n${s}`,
  continuation: (s) => {
    const at = s.indexOf(" ");
    return at > 0 && isSimple(s.slice(0, at)) && !/['"]/.test(s.slice(0, at))
      ? `${s.slice(0, at)} \\\n  ${s.slice(at + 1)}`
      : null;
  },
  "cd first": (s) => `cd /tmp && ${unit(s)}`,
};

/** Respellings of the command's words: the shell reads each as the original. */
export const SPELLINGS: Record<string, (words: string[]) => string | null> = {
  "single quotes": (w) => [q(w[0]), ...w.slice(1)].join(" "),
  "double quotes": (w) => [`"${w[0]}"`, ...w.slice(1)].join(" "),
  "empty quotes": (w) => [`${w[0][0]}''${w[0].slice(1)}`, ...w.slice(1)].join(" "),
  backslash: (w) => [`\\${w[0]}`, ...w.slice(1)].join(" "),
  "inner backslash": (w) => [`${w[0][0]}\\${w[0].slice(1)}`, ...w.slice(1)].join(" "),
  "ANSI-C": (w) =>
    [`$'${[...w[0]].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join("")}'`, ...w.slice(1)]
      .join(" "),
  "octal ANSI-C": (w) =>
    [`$'${[...w[0]].map((c) => `\\${c.charCodeAt(0).toString(8)}`).join("")}'`, ...w.slice(1)].join(
      " ",
    ),
  IFS: (w) => (w.every(simple) ? w.join("${IFS}") : null),
  "plain IFS": (w) =>
    w.every(simple)
      ? w.map((x, i) => (i === 0 ? x : /^\w/.test(x) ? `\${IFS}${x}` : `$IFS${x}`)).join("")
      : null,
  braces: (w) => (w.every((x) => simple(x) && !x.includes(",")) ? `{${w.join(",")}}` : null),
  "line continuation": (w) => [`${w[0][0]}\\\n${w[0].slice(1)}`, ...w.slice(1)].join(" "),
  "absolute path": (
    w,
  ) => (["rm", "curl", "wget", "ssh", "nc", "touch", "cp", "cat", "mkdir", "mv", "find", "git"]
      .includes(w[0])
    ? [`/usr/bin/${w[0]}`, ...w.slice(1)].join(" ")
    : null),
  variable: (w) => `c=${w[0]}; $c ${w.slice(1).join(" ")}`,
  "split variable": (w) =>
    `a=${w[0].slice(0, 1)}; b=${w[0].slice(1)}; $a$b ${w.slice(1).join(" ")}`,
  "echo substitution": (w) => [`$(echo ${w[0]})`, ...w.slice(1)].join(" "),
  "quoted arguments": (w) => [w[0], ...w.slice(1).map((x) => `"${x}"`)].join(" "),
  "default expansion": (w) => [`\${UNSET_NAME:-${w[0]}}`, ...w.slice(1)].join(" "),
};
