/**
 * Internal shapes shared by the walker and the rules.
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import type { ClassifyContext } from "./classifier.ts";
import type { DenyRuleMatcher } from "./match_deny_rules.ts";
import type { PathScope } from "./_paths.ts";
import type { WalkState } from "./_walk_state.ts";
import type { VerdictPart } from "./verdict.ts";

/** Marks the part of an evaluated word that is only known at run time (`$1`, `$(curl …)`). */
export const DYNAMIC = "\u0000";

/** Where a simple command's standard input comes from. */
export type Stdin =
  /** Nothing redirected and no pipe: the shell tool's empty stdin. */
  | { kind: "none" }
  /** A pipe; `text` is the upstream output when statically known (`echo …`, `cat <<EOF`). */
  | { kind: "pipe"; text: string | null; roots: string[] | null }
  /** A here-document or here-string; `text` null when it holds run-time values. */
  | { kind: "text"; text: string | null }
  /** `< file`. */
  | { kind: "file"; path: string };

/** A redirection of a command or compound statement. */
export interface Redirect {
  /** `write` (`>`, `>>`, `&>`, `>|`, `<>`) or `read` (`<`). */
  mode: "write" | "read";
  /** The evaluated target word. */
  target: string;
  /** `>>`: appends instead of truncating. */
  append: boolean;
}

/** One simple command after expansion. */
export interface SimpleCommand {
  /** Evaluated fields: quoting removed, braces and `$IFS` expanded, `DYNAMIC` for run-time parts. */
  argv: string[];
  /** Prefix assignments (`FOO=bar cmd`), evaluated. */
  assigns: [string, string][];
  /** Source text, used as the parts' subject. */
  text: string;
  /** File redirections (here-documents are in `stdin`). */
  redirects: Redirect[];
  /** The directory it runs in; null when a `cd` made it unknown. */
  cwd: string | null;
  stdin: Stdin;
  /** The live state of the shell that runs it (eval and source change it). */
  state: WalkState;
}

/** What rules may ask of the classifier. */
export interface Scope {
  context: ClassifyContext;
  paths: PathScope;
  /** The context's deny rules, compiled. */
  deny: DenyRuleMatcher;
  /**
   * Classify a nested script (a payload) that runs in `cwd`: in a new shell, or with `state`
   * in the current one (`eval`, `source`), whose variables and directory it then changes.
   */
  script(text: string, cwd: string | null, state?: WalkState): VerdictPart[];
  /** Classify one simple command (an unwrapped payload). */
  command(command: SimpleCommand): VerdictPart[];
  /** Parse `text` as Bash; `use` gets null when it is not valid Bash. */
  parse<T>(text: string, use: (root: Node | null) => T): T;
  /** Count one step of the walk; throws a `RangeError` past the budget of one classification. */
  tick(): void;
}

/** Stands before a brace-expansion word in command position so the parser accepts it. */
export const BRACE_SENTINEL = "__odek_brace_word__";

/** Truncate a subject to a readable length. */
export function subjectOf(text: string): string {
  const flat = text.replaceAll(`${BRACE_SENTINEL} `, "").trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}
