/**
 * Walks a parsed Bash program and hands every simple command it would run to the rules, in
 * order, with what it knows statically: the directory (`cd`), variables, functions, standard
 * input (pipes, here-documents), redirections and files the script wrote. Control flow is in
 * `_walk_control.ts`; a final sweep classifies any command node the structured walk missed.
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import { pipeFrom } from "./_static_output.ts";
import type { Redirect, Scope, SimpleCommand, Stdin } from "./_types.ts";
import { callFunction, walkSubstitution, wordsFor } from "./_walk_calls.ts";
import { walkCompound } from "./_walk_control.ts";
import { applyEffects, assignmentCommand } from "./_walk_effects.ts";
import { quotedHeredoc, type Redirects, redirectsOf } from "./_walk_redirects.ts";
import { copyState, type WalkState } from "./_walk_state.ts";
import type { WordEvaluator } from "./_word.ts";
import { RULES } from "./_rules.ts";
import type { VerdictPart } from "./verdict.ts";

export { initialState, type WalkState } from "./_walk_state.ts";

const NONE: Stdin = { kind: "none" };
const MAX_DEPTH = 150;

/** Walks one tree; parts are appended to `parts`. */
export class Walker {
  readonly scope: Scope;
  readonly #parts: VerdictPart[];
  readonly #visited = new Set<number>();
  /** Functions defined in this tree and not called yet, with the state at their definition. */
  readonly #uncalled = new Map<string, WalkState>();
  /** Redirects tree-sitter hung on a whole list or pipeline, by the command they belong to. */
  readonly #attached = new Map<number, Node[]>();
  #depth = 0;

  constructor(scope: Scope, parts: VerdictPart[]) {
    this.scope = scope;
    this.#parts = parts;
  }

  /** Walk a whole program, then functions it never called, then sweep for anything missed. */
  program(root: Node, st: WalkState, stdin: Stdin = NONE): SimpleCommand | null {
    const last = this.statement(root, st, stdin);
    for (const [name, at] of this.#uncalled) this.call(name, [], copyState(at));
    this.#sweep(root, st);
    return last;
  }

  /** Add parts. */
  push(...parts: VerdictPart[]): void {
    this.#parts.push(...parts);
  }

  /** Add an `unknown` part. */
  unknown(subject: string, detail: string): void {
    this.push({ riskClass: "unknown", subject: subject.trim(), targets: [], detail });
  }

  /** Mark a node as walked (the sweep skips it). */
  visit(node: Node): void {
    this.#visited.add(node.id);
  }

  /** Record a function definition (walked when called, or at the end). */
  define(name: string, at: WalkState): void {
    this.#uncalled.set(name, copyState(at));
  }

  /** Walk a function's body for a call with `args` and `stdin`, in the caller's shell `st`. */
  call(name: string, args: string[], st: WalkState, stdin: Stdin = NONE): void {
    this.#uncalled.delete(name);
    callFunction(this, name, args, st, stdin);
  }

  /** A walker for another tree that adds to the same parts. */
  child(): Walker {
    return new Walker(this.scope, this.#parts);
  }

  #sweep(node: Node, st: WalkState): void {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "heredoc_body" && quotedHeredoc(node)) continue;
      if (!this.#visited.has(child.id)) {
        if (child.type === "command" || child.type === "redirected_statement") {
          this.statement(child, copyState(st), NONE);
        } else if (child.type === "command_substitution" || child.type === "process_substitution") {
          this.substitution(child, copyState(st));
        }
      }
      this.#sweep(child, st);
    }
  }

  /** A word evaluator for commands run in `st`. */
  words(st: WalkState): WordEvaluator {
    return wordsFor(this, st);
  }

  /** Walk a command or process substitution in a subshell; its static output, or null. */
  substitution(node: Node, st: WalkState): string | null {
    this.visit(node);
    return walkSubstitution(this, node, st);
  }

  /** Walk one statement; returns the simple command it is, when it is one. */
  statement(node: Node, st: WalkState, stdin: Stdin): SimpleCommand | null {
    this.visit(node);
    this.scope.tick();
    if (++this.#depth > MAX_DEPTH) {
      this.#depth--;
      this.unknown(node.text, "nested too deeply to classify");
      return null;
    }
    try {
      const attached = this.#attached.get(node.id);
      if (attached) {
        this.#attached.delete(node.id);
        const own = node.type === "redirected_statement";
        const body = own ? node.childForFieldName("body") : node;
        const redirects = own ? [...node.childrenForFieldName("redirect"), ...attached] : attached;
        const text = [node.text, ...attached.map((r) => r.text)].join(" ");
        return this.redirected(body, redirects, st, stdin, text);
      }
      switch (node.type) {
        case "command":
          return this.#command(node, st, stdin, [], node.text);
        case "redirected_statement":
          return this.#redirectedStatement(node, st, stdin);
        case "variable_assignment":
        case "variable_assignments":
        case "declaration_command":
        case "unset_command":
          this.push(...this.scope.command(assignmentCommand(node, st, this.words(st))));
          return null;
        default:
          return walkCompound(this, node, st, stdin);
      }
    } finally {
      this.#depth--;
    }
  }

  #command(node: Node, st: WalkState, stdin: Stdin, redirects: Redirect[], text: string) {
    this.visit(node);
    const words = this.words(st);
    const assigns: [string, string][] = [];
    const nodes: Node[] = [];
    const own: Node[] = [];
    for (let i = 0; i < node.namedChildCount; i++) {
      const child = node.namedChild(i);
      if (!child) continue;
      const field = node.fieldNameForNamedChild(i);
      if (child.type === "variable_assignment") {
        const name = child.childForFieldName("name")?.text ?? "";
        for (const value of words.values(child.childForFieldName("value"))) {
          assigns.push([name, value]);
        }
      } else if (field === "redirect" || child.type.endsWith("_redirect")) own.push(child);
      else if (field === "name" || field === "argument") nodes.push(child);
      else this.statement(child, copyState(st), NONE);
    }
    const argv = words.fields(nodes);
    const extra = redirectsOf(own, words, (n) => this.substitution(n, copyState(st)));
    const all = [...redirects, ...extra.redirects];
    const command: SimpleCommand = {
      argv,
      assigns,
      text,
      cwd: st.cwd,
      stdin: extra.stdin ?? stdin,
      redirects: all,
      state: st,
    };
    const fn = argv.length > 0 && st.funcs.has(argv[0]) ? argv[0] : null;
    // A function call runs its body; a function that shadows a known command (or whose
    // definition may not have run) is classified as that command too.
    const parts = fn !== null && !RULES.has(fn)
      ? this.scope.command({ ...command, argv: [] })
      : this.scope.command(command);
    this.push(...parts);
    if (fn !== null) this.call(fn, argv.slice(1), st, command.stdin);
    applyEffects(command, parts, this.scope);
    this.#follow(extra.follow, command, st);
    return command;
  }

  /**
   * tree-sitter-bash hangs `a && b > f` and `a | b > f` on the whole list or pipeline; Bash
   * gives the redirect to the last command (`b`), so it is attached there.
   */
  #redirectedStatement(node: Node, st: WalkState, stdin: Stdin): SimpleCommand | null {
    const body = node.childForFieldName("body");
    const redirects = node.childrenForFieldName("redirect");
    let leaf = body;
    while (leaf && ["list", "pipeline", "negated_command"].includes(leaf.type)) {
      leaf = leaf.namedChildren.filter((c) => c !== null).at(-1) ?? null;
    }
    if (!body || !leaf || leaf === body) {
      return this.redirected(body, redirects, st, stdin, node.text);
    }
    this.#attached.set(leaf.id, redirects);
    return this.statement(body, st, stdin);
  }

  /** Walk `body` (null: none) with the redirections `redirectNodes`. */
  redirected(
    body: Node | null,
    redirectNodes: Node[],
    st: WalkState,
    stdin: Stdin,
    text: string,
  ): SimpleCommand | null {
    const words = this.words(st);
    const extra = redirectsOf(redirectNodes, words, (n) => this.substitution(n, copyState(st)));
    const input = extra.stdin ?? stdin;
    let last: SimpleCommand | null = null;
    if (body?.type === "command") {
      last = this.#command(body, st, input, extra.redirects, text);
    } else {
      const pseudo: SimpleCommand = {
        argv: [],
        assigns: [],
        text,
        cwd: st.cwd,
        stdin,
        redirects: extra.redirects,
        state: st,
      };
      this.push(...this.scope.command(pseudo));
      if (body) last = this.statement(body, st, input);
    }
    this.#follow(extra.follow, last, st);
    return last;
  }

  #follow(follow: Redirects["follow"], last: SimpleCommand | null, st: WalkState): void {
    for (const { node, piped } of follow) {
      this.statement(node, piped ? copyState(st) : st, piped ? pipeFrom(last, this.scope) : NONE);
    }
  }
}
