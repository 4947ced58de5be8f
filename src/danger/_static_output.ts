/**
 * What a command prints, when that is known without running it (`echo rm`, `printf …`,
 * `cat <<EOF`, `base64 -d` of a static input), and which directories a listing command
 * (`find`, `ls`, `git ls-files`) prints paths under. Used for `$(echo rm) -rf /`,
 * `echo … | sh`, `echo … | base64 -d | bash` and `find ~ | xargs rm`.
 *
 * @module
 */
import { DYNAMIC, type Scope, type SimpleCommand, type Stdin } from "./_types.ts";
import { decodeAnsiC } from "./_word_text.ts";

const MAX_OUTPUT = 64 * 1024;

function stdinText(command: SimpleCommand): string | null {
  const stdin = command.stdin;
  return stdin.kind === "pipe" || stdin.kind === "text" ? stdin.text : null;
}

function echo(args: string[]): string {
  let newline = true;
  let escapes = false;
  let i = 0;
  for (; i < args.length && /^-[neE]+$/.test(args[i]); i++) {
    if (args[i].includes("n")) newline = false;
    if (args[i].includes("e")) escapes = true;
    if (args[i].includes("E")) escapes = false;
  }
  const text = args.slice(i).join(" ");
  return (escapes ? decodeAnsiC(text) : text) + (newline ? "\n" : "");
}

function printf(args: string[]): string | null {
  if (args[0] === "-v") return null;
  const [format = "", ...values] = args[0] === "--" ? args.slice(1) : args;
  if (!format.includes("%")) return decodeAnsiC(format);
  let out = "";
  let at = 0;
  do {
    out += decodeAnsiC(format).replace(
      /%([-+ #0]*\d*(?:\.\d+)?)([sbdiqc%])/g,
      (_, _f, c: string) => {
        if (c === "%") return "%";
        const value = values[at++] ?? "";
        return c === "b" ? decodeAnsiC(value) : value;
      },
    );
  } while (at < values.length && out.length < MAX_OUTPUT);
  return out;
}

function decodeBase64(text: string): string | null {
  try {
    const bytes = Uint8Array.from(atob(text.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The argv a wrapper runs (`time`, `exec`, `nice -n 5`, `timeout 5`, `env A=1` …). */
function unwrap(argv: string[]): string[] {
  let rest = argv;
  for (let guard = 0; guard < 16; guard++) {
    const [verb, ...args] = rest;
    let skip = 0;
    if (["time", "exec", "command", "builtin", "nohup", "setsid"].includes(verb)) {
      while (
        /^-[a-z]$/.test(args[skip] ?? "") && !(verb === "command" && /^-[vV]$/.test(args[skip]))
      ) skip++;
    } else if (verb === "nice" || verb === "stdbuf" || verb === "env") {
      while (
        /^(-[a-zA-Z]+|-n|\d+|[A-Za-z_]\w*=.*)$/.test(args[skip] ?? "") && args[skip] !== "-S"
      ) {
        skip += args[skip] === "-n" ? 2 : 1;
      }
    } else if (verb === "timeout") skip = 1;
    else return rest;
    rest = args.slice(skip);
  }
  return rest;
}

/** The text `command` writes to stdout, when it is statically known; else null. */
export function staticOutput(command: SimpleCommand): string | null {
  const [verb, ...args] = unwrap(command.argv);
  let out: string | null = null;
  switch (verb) {
    case "echo":
      out = echo(args);
      break;
    case "printf":
      out = printf(args);
      break;
    case "cat":
      out = args.filter((a) => a !== "-").length === 0 ? stdinText(command) : null;
      break;
    case "base64":
    case "base32": {
      const input = stdinText(command);
      const decode = args.some((a) => /^(-[a-zA-Z]*[dD][a-zA-Z]*|--decode)$/.test(a));
      out = input !== null && decode && verb === "base64" ? decodeBase64(input) : null;
      break;
    }
    case "xxd": {
      const input = stdinText(command);
      const reverse = args.includes("-r") && args.some((a) => /^-(p|ps|plain)$/.test(a));
      out = input !== null && reverse && /^[0-9a-fA-F\s]*$/.test(input)
        ? (input.replace(/\s+/g, "").match(/../g) ?? []).map((h) =>
          String.fromCharCode(parseInt(h, 16))
        ).join("")
        : null;
      break;
    }
    case "mktemp": {
      // Only the default template in the default directory: $TMPDIR/tmp.XXXXXXXXXX (the
      // session's scratch, which the walk starts with in TMPDIR).
      const tmpdir = command.state.vars.get("TMPDIR");
      const dir = tmpdir?.length === 1 ? tmpdir[0] : "/tmp";
      out = args.every((a) => /^-[dqu]+$/.test(a)) ? `${dir}/tmp.XXXXXXXXXX\n` : null;
      break;
    }
    case "rev": {
      const input = stdinText(command);
      out = input === null || args.length > 0
        ? null
        : input.split("\n").map((line) => [...line].reverse().join("")).join("\n");
      break;
    }
  }
  if (out === null || out.includes(DYNAMIC) || out.length > MAX_OUTPUT) return null;
  return out;
}

/**
 * Absolute directories under which `command` prints only paths (for `xargs`), or null when it
 * may print anything else (file contents, command output).
 */
export function listingRoots(command: SimpleCommand, scope: Scope): string[] | null {
  const [verb, ...args] = command.argv;
  const operands = args.filter((a) => !a.startsWith("-"));
  let roots: string[] | null = null;
  switch (verb) {
    case "find": {
      if (args.some((a) => /^-(exec|execdir|ok|okdir|printf|fprintf|fls|ls)$/.test(a))) return null;
      const end = args.findIndex((a) => /^[-!(]/.test(a) && !/^-[HLP]$/.test(a));
      roots = (end < 0 ? args : args.slice(0, end)).filter((a) => !/^-[HLP]$/.test(a));
      if (roots.length === 0) roots = ["."];
      break;
    }
    case "ls":
    case "du":
    case "tree":
      roots = [".", ...operands];
      break;
    case "fd":
    case "fdfind":
      if (args.some((a) => /^(-x|-X|--exec|--exec-batch)$/.test(a))) return null;
      roots = [".", ...operands.slice(1)];
      break;
    case "grep":
    case "egrep":
    case "rg":
    case "ag":
      // Only file-name listings: `grep -l`, `rg --files`.
      if (!args.some((a) => /^(-[a-zA-Z]*[lL][a-zA-Z]*|--files(-with(out)?-matches)?)$/.test(a))) {
        return null;
      }
      roots = [".", ...operands];
      break;
    case "git":
      if (!["ls-files", "diff", "status"].includes(operands[0] ?? "")) return null;
      if (
        operands[0] !== "ls-files" && !args.some((a) => /^--(name-only|porcelain|short)$/.test(a))
      ) {
        return null;
      }
      roots = ["."];
      break;
    default:
      return null;
  }
  const resolved = roots.map((root) => scope.paths.resolve(root, command.cwd));
  return resolved.every((r) => r !== null) ? (resolved as string[]) : null;
}

/** The stdin of a command that reads `from`'s output through a pipe (null: unknown). */
export function pipeFrom(from: SimpleCommand | null, scope: Scope): Stdin {
  return from
    ? { kind: "pipe", text: staticOutput(from), roots: listingRoots(from, scope) }
    : { kind: "pipe", text: null, roots: null };
}
