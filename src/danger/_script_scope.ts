/**
 * Classifies whole scripts: joins line continuations, parses, walks, and recurses into payloads
 * (`bash -c`, `eval`, `… | sh`) up to a fixed depth. Implements the rules' {@linkcode Scope}.
 *
 * @module
 */
import type { BashParser, Node } from "./_bash_parser.ts";
import type { ClassifyContext } from "./classifier.ts";
import { classifySimpleCommand } from "./_command.ts";
import { PathScope } from "./_paths.ts";
import { BRACE_SENTINEL, type Scope, type SimpleCommand, subjectOf } from "./_types.ts";
import { initialState, Walker, type WalkState } from "./_walk.ts";
import { DenyRuleMatcher } from "./match_deny_rules.ts";
import type { VerdictPart } from "./verdict.ts";

const MAX_PAYLOAD_DEPTH = 12;
const MAX_SCRIPT_LENGTH = 256 * 1024;
/** Statements one classification may walk (function calls and loops can multiply them). */
const MAX_STEPS = 50_000;
const BRACE_WORD = /(^|[;&|(\n`]\s*|\b(?:then|do|else)\s+)\{(?=[^\s}])/;

/** Ranges where a backslash-newline is literal: comments, single-quoted and ANSI-C strings. */
function literalRanges(root: Node): [number, number][] {
  const out: [number, number][] = [];
  const visit = (node: Node) => {
    if (node.type === "comment" || node.type === "raw_string" || node.type === "ansi_c_string") {
      out.push([node.startIndex, node.endIndex]);
      return;
    }
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return out;
}

/** Classifies scripts for one context. */
export class ScriptScope implements Scope {
  readonly context: ClassifyContext;
  readonly paths: PathScope;
  readonly deny: DenyRuleMatcher;
  readonly #parser: BashParser;
  #depth = 0;
  #steps = 0;

  constructor(parser: BashParser, context: ClassifyContext) {
    this.#parser = parser;
    this.context = context;
    this.paths = new PathScope(
      context.workspace,
      context.home,
      context.protectedRoots,
      context.addDirs,
      {
        ...(context.scratchDir ? { scratchDir: context.scratchDir } : {}),
        ...(context.repository ? { protectedExtra: context.repository.protectedExtra } : {}),
        ...(context.repository ? { repositories: context.repository.repositories } : {}),
      },
    );
    this.deny = new DenyRuleMatcher(context.denyRules ?? [], context);
  }

  /** Remove backslash-newline pairs the way Bash does (not in comments or single quotes). */
  joinContinuations(text: string): string {
    if (!text.includes("\\\n")) return text;
    const ranges = this.#parser.parse(text, (root) => (root ? literalRanges(root) : []));
    let out = "";
    let at = 0;
    for (const match of text.matchAll(/(\\+)\n/g)) {
      const slash = match.index + match[1].length - 1;
      if (match[1].length % 2 === 0 || ranges.some(([s, e]) => slash >= s && slash < e)) continue;
      out += text.slice(at, slash);
      at = slash + 2;
    }
    return out + text.slice(at);
  }

  parse<T>(text: string, use: (root: Node | null) => T): T {
    // tree-sitter-bash reads a line that starts with a backslash (`ls\n\\rm x`) as more
    // arguments of the line before; Bash runs it as a new command. A space keeps them apart.
    const joined = this.joinContinuations(text).replace(/\n\\/g, "\n \\");
    const invalid = Symbol("invalid");
    const first = this.#parser.parse(joined, (root) => (root === null ? invalid : use(root)));
    if (first !== invalid) return first as T;
    // tree-sitter-bash reads `{a,b}` in command position as a broken group; Bash expands it.
    if (BRACE_WORD.test(joined) && !joined.includes(BRACE_SENTINEL)) {
      return this.#parser.parse(
        joined.replace(new RegExp(BRACE_WORD.source, "g"), `$1${BRACE_SENTINEL} {`),
        use,
      );
    }
    return use(null);
  }

  script(text: string, cwd: string | null, state?: WalkState): VerdictPart[] {
    const unknown = (detail: string): VerdictPart[] => [
      { riskClass: "unknown", subject: subjectOf(text), targets: [], detail },
    ];
    if (text.length > MAX_SCRIPT_LENGTH) return unknown("too long to classify");
    if (this.#depth >= MAX_PAYLOAD_DEPTH) return unknown("payloads nested too deeply to classify");
    this.#depth++;
    try {
      return this.parse(text, (root) => {
        if (root === null) return unknown("not valid Bash");
        const parts: VerdictPart[] = [];
        new Walker(this, parts).program(root, state ?? this.#start(cwd));
        return parts;
      });
    } finally {
      this.#depth--;
    }
  }

  /** A new shell's state: in `cwd`, with `TMPDIR` the session's scratch (as every sandbox has it). */
  #start(cwd: string | null): WalkState {
    const state = initialState(cwd);
    state.vars.set("TMPDIR", [this.paths.scratchDir]);
    return state;
  }

  tick(): void {
    if (++this.#steps > MAX_STEPS) {
      throw new RangeError(`more than ${MAX_STEPS} steps: the script is too complex to classify`);
    }
  }

  command(command: SimpleCommand): VerdictPart[] {
    return classifySimpleCommand(command, this);
  }
}
