/**
 * Evaluates Bash words statically, as the shell would before running a command: quote removal,
 * backslashes, ANSI-C strings, variables known from the script (`$HOME`, `$IFS`, `X=rm; $X`),
 * `${…}` operators, brace expansion, field splitting and tilde expansion. What only the run
 * can know becomes `DYNAMIC`.
 *
 * @module
 */
import type { Node } from "./_bash_parser.ts";
import { DYNAMIC } from "./_types.ts";
import { braceExpand, type Chars, concat, lit, splitFields } from "./_word_chars.ts";
import { expandTilde } from "./_word_tilde.ts";
import { decodeAnsiC, expansionOperator } from "./_word_text.ts";

/** What word evaluation needs from the walker. */
export interface WordHooks {
  /** Values of a shell variable (several when a `for` loop binds it), null when unknown. */
  variable(name: string): string[] | null;
  /** Walk a command substitution; its static output, or null. */
  substitution(node: Node): string | null;
  /** Walk a process substitution; the `/dev/fd/N` path the command sees. */
  processSubstitution(node: Node): string;
  /** Current `$IFS`. */
  ifs(): string;
  home: string;
  cwd: string | null;
}

const MAX_ALTERNATIVES = 32;
const DYN: Chars = { s: DYNAMIC, k: [0] };

function product(a: Chars[], b: Chars[]): Chars[] {
  const out: Chars[] = [];
  for (const x of a) for (const y of b) out.push(concat(x, y));
  return out.length > MAX_ALTERNATIVES ? [DYN] : out;
}

/** Group word nodes that touch in the source: they are one shell word. */
function adjacent(nodes: Node[]): Node[][] {
  const groups: Node[][] = [];
  for (const node of nodes) {
    const last = groups.at(-1);
    if (last && last.at(-1)!.endIndex === node.startIndex) last.push(node);
    else groups.push([node]);
  }
  return groups;
}

function unescapeUnquoted(text: string): Chars {
  const out: Chars = { s: "", k: [] };
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\" && i + 1 < text.length) {
      i++;
      if (text[i] === "\n") continue;
      out.s += text[i];
      out.k.push(0);
    } else {
      out.s += text[i];
      out.k.push(1);
    }
  }
  return out;
}

function unescapeDouble(text: string): Chars {
  return lit(text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c)), 0);
}

/** Evaluates words for one command. */
export class WordEvaluator {
  readonly #hooks: WordHooks;

  constructor(hooks: WordHooks) {
    this.#hooks = hooks;
  }

  /** The fields a list of word nodes expands to (command name and arguments). */
  fields(nodes: Node[]): string[] {
    const out: string[] = [];
    for (const group of adjacent(nodes)) {
      if (group.length === 1 && /^"?\$(@|\{@\})"?$/.test(group[0].text)) {
        // "$@": one field per positional parameter.
        const values = this.#hooks.variable("@");
        out.push(...(values ?? [DYNAMIC]));
        continue;
      }
      let alternatives: Chars[] = [lit("", 0)];
      for (const node of group) alternatives = product(alternatives, this.#eval(node, false));
      for (const alternative of alternatives.map((a) => this.#looseDollars(a))) {
        for (const expanded of braceExpand(alternative)) {
          const tilde = expandTilde(expanded, false, this.#hooks);
          for (const field of splitFields(tilde, this.#hooks.ifs())) out.push(field);
        }
      }
    }
    return out;
  }

  /** The values of an assignment's right-hand side (no splitting, no brace expansion). */
  values(node: Node | null): string[] {
    if (node === null) return [""];
    const alternatives = node.type === "array"
      ? node.namedChildren.flatMap((child) => (child ? this.#eval(child, false) : []))
      : this.#eval(node, false);
    return alternatives.map((c) =>
      expandTilde(this.#looseDollars(c), true, this.#hooks).s.replaceAll("\u0002", "")
    );
  }

  /** Expand `$NAME` left in literal text (tree-sitter sometimes splits `a$B/` oddly). */
  #looseDollars(c: Chars): Chars {
    let out: Chars = { s: "", k: [] };
    for (let i = 0; i < c.s.length; i++) {
      const m = c.s[i] === "$" && c.k[i] === 1
        ? /^(\{)?([A-Za-z_][A-Za-z0-9_]*)(\})?/.exec(c.s.slice(i + 1))
        : null;
      if (!m || (m[1] !== undefined) !== (m[3] !== undefined) || c.k[i + 1] !== 1) {
        out = concat(out, { s: c.s[i], k: [c.k[i]] });
        continue;
      }
      const values = m[2] === "IFS" ? [this.#hooks.ifs()] : this.#hooks.variable(m[2]);
      out = concat(out, values === null ? DYN : lit(values.join(" "), 2));
      i += m[0].length;
    }
    return out;
  }

  /** Evaluate the text between `from` and `to` of `node`, its named children as holes. */
  #region(node: Node, from: number, to: number, quoted: boolean): Chars[] {
    const text = node.text;
    const base = node.startIndex;
    let alternatives: Chars[] = [lit("", 0)];
    let at = from;
    const gap = (end: number) => {
      if (end <= at) return;
      const raw = text.slice(at - base, end - base);
      alternatives = product(alternatives, [quoted ? unescapeDouble(raw) : unescapeUnquoted(raw)]);
    };
    for (const child of node.namedChildren) {
      if (!child || child.startIndex < from || child.endIndex > to) continue;
      gap(child.startIndex);
      alternatives = product(alternatives, this.#eval(child, quoted));
      at = child.endIndex;
    }
    gap(to);
    return alternatives;
  }

  #eval(node: Node, quoted: boolean): Chars[] {
    const text = node.text;
    switch (node.type) {
      case "word":
      case "variable_name":
      case "extglob_pattern":
      case "regex":
      case "test_operator":
        return [quoted ? lit(text, 0) : unescapeUnquoted(text)];
      case "string_content":
        return [unescapeDouble(text)];
      case "raw_string":
        return [lit(`${text.slice(1, -1)}\u0002`, 0)];
      case "ansi_c_string":
        return [lit(`${decodeAnsiC(text.slice(2, -1))}\u0002`, 0)];
      case "string":
        return product(this.#region(node, node.startIndex + 1, node.endIndex - 1, true), [
          lit("\u0002", 0),
        ]);
      case "translated_string":
      case "concatenation":
      case "command_name":
      case "number":
      case "brace_expression":
        return this.#region(node, node.startIndex, node.endIndex, quoted);
      case "simple_expansion":
        return this.#variable(text.slice(1), quoted);
      case "expansion":
        return this.#expansion(node, quoted);
      case "command_substitution": {
        const output = this.#hooks.substitution(node);
        if (output === null) return [DYN];
        return [lit(output.replace(/\n+$/, ""), quoted ? 0 : 2)];
      }
      case "process_substitution":
        return [lit(this.#hooks.processSubstitution(node), 0)];
      default:
        this.#walkSubstitutions(node);
        return [DYN];
    }
  }

  /** Walk the substitutions under a node whose value is not computed (arithmetic …). */
  #walkSubstitutions(node: Node): void {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "command_substitution") this.#hooks.substitution(child);
      else if (child.type === "process_substitution") this.#hooks.processSubstitution(child);
      else this.#walkSubstitutions(child);
    }
  }

  #variable(name: string, quoted: boolean): Chars[] {
    if (name === "IFS") return [lit(this.#hooks.ifs(), quoted ? 0 : 2)];
    const values = this.#hooks.variable(name);
    if (values === null) return [DYN];
    return values.map((value) => lit(value, quoted ? 0 : 2));
  }

  #expansion(node: Node, quoted: boolean): Chars[] {
    const text = node.text;
    const op = expansionOperator(text);
    if (op === null) {
      this.#walkSubstitutions(node);
      return [DYN];
    }
    const values = op.name === "IFS" ? [this.#hooks.ifs()] : this.#hooks.variable(op.name);
    const operand = () =>
      this.#region(node, node.startIndex + op.operandStart, node.endIndex - 1, quoted);
    const kind = quoted ? 0 : 2;
    switch (op.operator) {
      case "":
        return values === null ? [DYN] : values.map((v) => lit(v, kind));
      case ":-":
      case "-":
      case ":=":
      case "=":
        return values === null ? operand() : values.map((v) => lit(v, kind));
      case ":?":
      case "?":
        return values === null ? [DYN] : values.map((v) => lit(v, kind));
      case ":+":
      case "+":
        return values === null ? [...operand(), lit("", kind)] : operand();
      default: {
        this.#walkSubstitutions(node);
        if (values === null || op.apply === null) return [DYN];
        return values.map((v) => lit(op.apply!(v), kind));
      }
    }
  }
}
