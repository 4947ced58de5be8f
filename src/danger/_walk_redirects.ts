/**
 * Redirections of a command or compound statement: file targets, here-documents and
 * here-strings (a command's static standard input), and the statements tree-sitter nests in
 * a here-document redirect (`cat <<EOF | sh`, `cat <<EOF && rm x`).
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import { DYNAMIC, type Redirect, type Stdin } from "./_types.ts";
import type { WordEvaluator } from "./_word.ts";

/** What a set of redirect nodes amounts to. */
export interface Redirects {
  redirects: Redirect[];
  /** Standard input they set (`<<EOF`, `<<<`, `< file`), or null. */
  stdin: Stdin | null;
  /** Statements to walk after the command: `piped` ones read its output. */
  follow: { node: Node; piped: boolean }[];
}

function operatorOf(node: Node): string {
  for (const child of node.children) {
    if (child && !child.isNamed) return child.type;
  }
  return "";
}

/** Collect the redirects among `nodes`. */
export function redirectsOf(
  nodes: Node[],
  words: WordEvaluator,
  substitute: (node: Node) => void,
): Redirects {
  const out: Redirects = { redirects: [], stdin: null, follow: [] };
  nodes.forEach((node, i) => collect(node, words, substitute, out, nodes[i + 1]?.startIndex));
  return out;
}

function collect(
  node: Node,
  words: WordEvaluator,
  substitute: (node: Node) => void,
  out: Redirects,
  next?: number,
): void {
  switch (node.type) {
    case "file_redirect": {
      const op = operatorOf(node);
      // tree-sitter-bash reads `>& FILE 0>&1` as two destinations: the `0` is the next
      // redirect's descriptor.
      const destinations = node.childrenForFieldName("destination").filter((d, i) =>
        !(i > 0 && d.type === "number" && d.endIndex === next)
      );
      const targets = words.fields(destinations);
      if ((op === ">&" || op === "<&") && targets.every((t) => /^(\d+-?|-)$/.test(t))) return;
      for (const target of targets) {
        if (op === "<" || op === "<&") {
          out.redirects.push({ mode: "read", target, append: false });
          out.stdin = { kind: "file", path: target };
        } else {
          const append = op === ">>" || op === "&>>";
          out.redirects.push({ mode: "write", target, append });
        }
      }
      return;
    }
    case "herestring_redirect": {
      const values = words.fields(node.namedChildren.filter((c) => c !== null));
      const text = values.join(" ");
      out.stdin = { kind: "text", text: text.includes(DYNAMIC) ? null : `${text}\n` };
      return;
    }
    case "heredoc_redirect": {
      let text: string | null = null;
      for (let i = 0; i < node.namedChildCount; i++) {
        const child = node.namedChild(i);
        if (!child) continue;
        const field = node.fieldNameForNamedChild(i);
        if (child.type === "heredoc_body") text = heredocText(node, child, substitute);
        else if (child.type === "pipeline") out.follow.push({ node: child, piped: true });
        else if (field === "right") out.follow.push({ node: child, piped: false });
        else if (child.type.endsWith("_redirect")) collect(child, words, substitute, out);
        else if (field === "argument") words.fields([child]);
      }
      out.stdin = { kind: "text", text };
      return;
    }
    default:
      words.fields([node]);
  }
}

/** True when a here-document's delimiter is quoted, so its body is literal. */
export function quotedHeredoc(redirect: Node): boolean {
  const start = redirect.namedChildren.find((c) => c?.type === "heredoc_start")?.text ?? "";
  return /['"\\]/.test(start);
}

function heredocText(redirect: Node, body: Node, substitute: (node: Node) => void): string | null {
  const quoted = quotedHeredoc(redirect);
  let dynamic = false;
  for (const child of body.namedChildren) {
    if (!child || child.type === "heredoc_content") continue;
    if (quoted) continue;
    dynamic = true;
    if (child.type === "command_substitution") substitute(child);
    else {
      for (const inner of child.descendantsOfType("command_substitution")) {
        if (inner) substitute(inner);
      }
    }
  }
  return dynamic ? null : body.text;
}
