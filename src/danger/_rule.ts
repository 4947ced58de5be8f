/**
 * The shape of a rule (one verb's classification) and the option parser rules share.
 *
 * @module
 */
import type { PartList } from "./_parts.ts";
import type { Scope, SimpleCommand } from "./_types.ts";

/** What a rule gets: the arguments after the verb, and where to put parts. */
export interface RuleInput {
  /** The verb as written after normalisation (`/bin/rm` → `rm`). */
  verb: string;
  /** The arguments after the verb. */
  args: string[];
  /** The command being classified (stdin, cwd, source text). */
  command: SimpleCommand;
  parts: PartList;
  scope: Scope;
  /**
   * Classify `argv` as the command this one runs (wrappers, `find -exec`, `xargs`), in `cwd`
   * when it changes directory first (`env -C`; null: unknown).
   */
  run(argv: string[], cwd?: string | null): void;
}

/** Classifies one verb. */
export type Rule = (input: RuleInput) => void;

/** Parsed command-line options. */
export interface Options {
  /** Every option as written before its value (`-r`, `--force`, `-x` from `-rx`). */
  flags: Set<string>;
  /** Values of value-taking options, by option (`-o` → [`out.txt`]). */
  values: Map<string, string[]>;
  /** Arguments that are not options. */
  operands: string[];
}

/**
 * Parse GNU-style options. `valued` lists the options that take a value (`-o`, `--output`), as
 * an iterable or a space-separated string.
 * With `stopAtOperand`, everything from the first operand on is an operand (wrappers).
 */
export function parseOptions(
  args: string[],
  valued: Iterable<string> | string = [],
  stopAtOperand = false,
): Options {
  const takes = new Set(typeof valued === "string" ? valued.split(/\s+/) : valued);
  const out: Options = { flags: new Set(), values: new Map(), operands: [] };
  const put = (flag: string, value: string) => {
    out.flags.add(flag);
    out.values.set(flag, [...(out.values.get(flag) ?? []), value]);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith("--") && arg.length > 2) {
      const eq = arg.indexOf("=");
      if (eq > 0) put(arg.slice(0, eq), arg.slice(eq + 1));
      else if (takes.has(arg) && i + 1 < args.length) put(arg, args[++i]);
      else out.flags.add(arg);
    } else if (arg.startsWith("-") && arg.length > 1 && !/^-\d/.test(arg)) {
      for (let j = 1; j < arg.length; j++) {
        const flag = `-${arg[j]}`;
        if (takes.has(flag)) {
          const rest = arg.slice(j + 1);
          if (rest !== "") put(flag, rest);
          else if (i + 1 < args.length) put(flag, args[++i]);
          else out.flags.add(flag);
          break;
        }
        out.flags.add(flag);
      }
    } else {
      out.operands.push(arg);
      if (stopAtOperand) {
        out.operands.push(...args.slice(i + 1));
        break;
      }
    }
  }
  return out;
}

/** True when any of `names` was given. */
export function has(options: Options, ...names: string[]): boolean {
  return names.some((name) => options.flags.has(name));
}
