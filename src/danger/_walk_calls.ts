/**
 * The walk's nested programs: a function body walked for one call (with its positional
 * parameters and stdin, in the caller's shell), and command substitutions (a subshell whose
 * static output becomes the word's value: `$(echo rm)` is `rm`).
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import { staticOutput } from "./_static_output.ts";
import { DYNAMIC, type SimpleCommand, type Stdin } from "./_types.ts";
import { copyState, type WalkState } from "./_walk_state.ts";
import { WordEvaluator } from "./_word.ts";
import type { Walker } from "./_walk.ts";

const NONE: Stdin = { kind: "none" };

/** Walk the body of function `name` for a call with `args` and `stdin`, in the shell `st`. */
export function callFunction(
  w: Walker,
  name: string,
  args: string[],
  st: WalkState,
  stdin: Stdin,
): void {
  const body = st.funcs.get(name);
  const key = `${name}\u0000${body}`;
  if (body === undefined || st.active.has(key)) return;
  const names = ["@", "*", "#", ...Array.from({ length: 9 }, (_, i) => String(i + 1))];
  const saved = names.map((n) => [n, st.vars.get(n)] as const);
  const values = [args, [args.join(" ")], [String(args.length)]];
  names.forEach((n, i) => st.vars.set(n, values[i] ?? [args[i - 3] ?? ""]));
  st.active.add(key);
  try {
    w.scope.parse(body, (root) => {
      if (root) w.child().program(root, st, stdin);
      else w.unknown(body, "a function body that is not valid Bash");
    });
  } finally {
    st.active.delete(key);
    for (const [n, value] of saved) {
      if (value === undefined) st.vars.delete(n);
      else st.vars.set(n, value);
    }
  }
}

function output(command: SimpleCommand | null): string | null {
  const text = command ? staticOutput(command) : null;
  return text === null || text.includes(DYNAMIC) ? null : text;
}

/** Walk a command or process substitution in the subshell `st`; its static output, or null. */
export function walkSubstitution(w: Walker, node: Node, st: WalkState): string | null {
  if (node.text.startsWith("`")) {
    const body = node.text.slice(1, -1).replace(/\\([\\`$])/g, "$1");
    return w.scope.parse(body, (root) => {
      if (root === null) {
        w.unknown(body, "a backquoted command that is not valid Bash");
        return null;
      }
      return output(w.child().program(root, st));
    });
  }
  let last: SimpleCommand | null = null;
  let count = 0;
  const redirects: Node[] = [];
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === "file_redirect") redirects.push(child);
    else {
      last = w.statement(child, st, NONE);
      count++;
    }
  }
  // `$(< file)` reads the file.
  if (redirects.length > 0) w.redirected(null, redirects, st, NONE, node.text);
  return count === 1 ? output(last) : null;
}

/** A word evaluator for commands the walker `w` runs in `st`. */
export function wordsFor(w: Walker, st: WalkState): WordEvaluator {
  return new WordEvaluator({
    variable: (name) => {
      if (name === "HOME") return [w.scope.context.home];
      if (name === "PWD") return st.cwd === null ? null : [st.cwd];
      return st.vars.get(name) ?? null;
    },
    substitution: (node) => w.substitution(node, copyState(st)),
    processSubstitution: (node) => {
      const path = `/dev/fd/${st.fd.next--}`;
      st.files.set(path, w.substitution(node, copyState(st)));
      return path;
    },
    ifs: () => st.ifs,
    home: w.scope.context.home,
    cwd: st.cwd,
  });
}
