/**
 * Control flow of the walk: lists, `if`, `case`, loops, subshells and function definitions.
 * A branch that may not run is walked on a copy of the state and joined back
 * (`_walk_state.ts`); a loop body is walked again when its first pass changed the state, so a
 * value set late in one iteration is seen by the next.
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import { pipeFrom } from "./_static_output.ts";
import { DYNAMIC, type SimpleCommand, type Stdin } from "./_types.ts";
import { copyState, mergeState, sameState, type WalkState } from "./_walk_state.ts";
import type { Walker } from "./_walk.ts";

function named(node: Node): Node[] {
  return node.namedChildren.filter((c): c is Node => c !== null);
}

function sequence(w: Walker, nodes: Node[], st: WalkState, stdin: Stdin): SimpleCommand | null {
  let last: SimpleCommand | null = null;
  for (const node of nodes) last = w.statement(node, st, stdin);
  return last;
}

/** Walk alternative branches from one starting state and join them all into `st`. */
function branches(w: Walker, alternatives: Node[][], st: WalkState, stdin: Stdin): void {
  const states = alternatives.map(() => copyState(st));
  alternatives.forEach((nodes, i) => sequence(w, nodes, states[i], stdin));
  for (const branch of states) mergeState(st, branch);
}

/** Walk a loop body at most twice: again when the first pass changed the state. */
function loop(w: Walker, body: Node[], st: WalkState, stdin: Stdin): void {
  for (let pass = 0; pass < 2; pass++) {
    const before = copyState(st);
    branches(w, [body], st, stdin);
    if (sameState(before, st)) return;
  }
}

function visitAll(w: Walker, node: Node): void {
  w.visit(node);
  for (const child of named(node)) visitAll(w, child);
}

/** A function that starts itself in a pipeline or in the background never stops forking. */
function forksItself(name: string, body: string): boolean {
  const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w-])${quoted}\\s*(\\||&(?!&))|\\|\\s*${quoted}($|[^\\w-])`).test(body);
}

/** Walk a statement that is not a simple command; returns the last simple command run. */
export function walkCompound(
  w: Walker,
  node: Node,
  st: WalkState,
  stdin: Stdin,
): SimpleCommand | null {
  const children = named(node);
  switch (node.type) {
    case "program":
    case "compound_statement":
    case "do_group":
    case "negated_command":
      return sequence(w, children, st, stdin);
    case "subshell":
      return sequence(w, children, copyState(st), stdin);
    case "pipeline": {
      let input = stdin;
      let last: SimpleCommand | null = null;
      for (const stage of children) {
        last = w.statement(stage, copyState(st), input);
        input = pipeFrom(last, w.scope);
      }
      return last;
    }
    case "list": {
      const last = w.statement(children[0], st, stdin);
      for (const right of children.slice(1)) branches(w, [[right]], st, stdin);
      return last;
    }
    case "if_statement": {
      const conditions = children.filter((_, i) => node.fieldNameForNamedChild(i) === "condition");
      const rest = children.filter((c) => !conditions.includes(c));
      sequence(w, conditions, st, stdin);
      const clauses = rest.filter((c) => c.type === "elif_clause" || c.type === "else_clause");
      const then = rest.filter((c) => !clauses.includes(c));
      branches(w, [then, ...clauses.map(named)], st, stdin);
      return null;
    }
    case "case_statement": {
      const items = children.filter((c) => c.type === "case_item");
      w.words(st).fields(children.filter((c) => c.type !== "case_item"));
      const bodies = items.map((item) => {
        const values = named(item).filter((_, i) => item.fieldNameForNamedChild(i) === "value");
        w.words(st).fields(values);
        return named(item).filter((c) => !values.includes(c));
      });
      branches(w, bodies, st, stdin);
      return null;
    }
    case "while_statement": {
      const body = node.childForFieldName("body");
      const conditions = children.filter((c) => c !== body);
      sequence(w, conditions, st, stdin);
      loop(w, body ? [...conditions, body] : conditions, st, stdin);
      return null;
    }
    case "for_statement": {
      const variable = node.childForFieldName("variable");
      const fields = w.words(st).fields(node.childrenForFieldName("value"));
      const known = /^(for|select)\s+\S+\s+in\b/.test(node.text) &&
        !fields.some((f) => f.includes(DYNAMIC));
      if (variable) st.vars.set(variable.text, known && fields.length > 0 ? fields : null);
      const body = node.childForFieldName("body");
      if (body) loop(w, [body], st, stdin);
      return null;
    }
    case "function_definition": {
      const name = node.childForFieldName("name");
      const body = node.childForFieldName("body");
      if (!name || !body) return null;
      visitAll(w, body);
      if (forksItself(name.text, body.text)) {
        w.push({ riskClass: "blocked", subject: node.text, targets: [], detail: "a fork bomb" });
      }
      st.funcs.set(name.text, body.text);
      w.define(name.text, st);
      return null;
    }
    case "comment":
    case "heredoc_body":
      return null;
    default:
      for (const child of children) {
        if (child.type === "command_substitution" || child.type === "process_substitution") {
          w.substitution(child, copyState(st));
        } else w.statement(child, st, stdin);
      }
      return null;
  }
}
