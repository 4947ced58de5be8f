/**
 * What an awk program makes the system do, read from its tokens (strings and regular
 * expressions are tokens, so `/a|b/` and `"x > y"` are not pipes or redirects): commands it
 * runs (`system(…)`, `"cmd" | getline`, `print | "cmd"`) and files it writes (`print > "f"`)
 * or reads (`getline < "f"`). A target built at run time is null.
 *
 * @module
 */

/** The effects of one awk program. */
export interface AwkEffects {
  /** Commands run by `system()` or read from (`cmd | getline`). */
  commands: (string | null)[];
  /** Commands awk prints into (`print | cmd`): their input is known only at run time. */
  pipes: (string | null)[];
  writes: (string | null)[];
  reads: (string | null)[];
}

interface Token {
  t: "str" | "re" | "id" | "num" | "op" | "nl";
  v: string;
}

/** After these a `/` starts a regular expression, not a division. */
const REGEX_AFTER = /^(?:[(,{};!~?:&|=<>+\-*%^]|&&|\|\||==|!=|<=|>=|print|printf|return|in)$/;
const OPERATORS = [
  "||",
  "&&",
  "|&",
  ">>",
  ">=",
  "<=",
  "==",
  "!=",
  "+=",
  "-=",
  "*=",
  "/=",
  "++",
  "--",
];

function tokenize(program: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const prev = () => out.at(-1);
  while (i < program.length) {
    const c = program[i];
    if (c === "\\" && program[i + 1] === "\n") i += 2;
    else if (c === "\n" || c === ";") out.push({ t: "nl", v: c }), i++;
    else if (/\s/.test(c)) i++;
    else if (c === "#") { while (i < program.length && program[i] !== "\n") i++; }
    else if (
      c === '"' || (c === "/" && (!prev() || REGEX_AFTER.test(prev()!.v) || prev()!.t === "nl"))
    ) {
      let j = i + 1;
      let text = "";
      let bracket = false;
      while (j < program.length && (program[j] !== c || bracket)) {
        if (program[j] === "\\" && j + 1 < program.length) {
          text += c === '"'
            ? ({ n: "\n", t: "\t" }[program[j + 1]] ?? program[j + 1])
            : program.slice(j, j + 2);
          j += 2;
          continue;
        }
        if (c === "/" && program[j] === "[") bracket = true;
        else if (c === "/" && program[j] === "]") bracket = false;
        text += program[j++];
      }
      out.push({ t: c === '"' ? "str" : "re", v: text });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_]\w*/.exec(program.slice(i))![0];
      out.push({ t: "id", v: m });
      i += m.length;
    } else if (/[0-9.]/.test(c)) {
      const m = /^[0-9.]+(?:[eE][-+]?\d+)?/.exec(program.slice(i))![0];
      out.push({ t: "num", v: m });
      i += m.length;
    } else {
      const op = OPERATORS.find((o) => program.startsWith(o, i)) ?? c;
      out.push({ t: "op", v: op });
      i += op.length;
    }
  }
  return out;
}

/** A lone string literal at `at` (not part of a longer expression), or null. */
function lone(tokens: Token[], at: number): string | null {
  const token = tokens[at];
  const next = tokens[at + 1];
  const ends = !next || next.t === "nl" || ["}", ")", "{"].includes(next.v);
  return token?.t === "str" && ends ? token.v : null;
}

/** The effects of the awk `program`. */
export function awkEffects(program: string): AwkEffects {
  const tokens = tokenize(program);
  const out: AwkEffects = { commands: [], pipes: [], writes: [], reads: [] };
  let depth = 0;
  let printDepth = -1;
  for (let i = 0; i < tokens.length; i++) {
    const { t, v } = tokens[i];
    if (v === "(") depth++;
    else if (v === ")") depth--;
    else if (t === "nl" || v === "{" || v === "}") printDepth = -1;
    else if (t === "id" && (v === "print" || v === "printf")) printDepth = depth;
    else if (t === "id" && v === "system" && tokens[i + 1]?.v === "(") {
      const single = tokens[i + 2]?.t === "str" && tokens[i + 3]?.v === ")";
      out.commands.push(single ? tokens[i + 2].v : null);
    } else if (v === "|" || v === "|&") {
      if (tokens[i + 1]?.v === "getline") {
        const before = tokens[i - 1];
        const concatenated = tokens[i - 2] && !["nl", "op"].includes(tokens[i - 2].t);
        out.commands.push(before?.t === "str" && !concatenated ? before.v : null);
      } else out.pipes.push(lone(tokens, i + 1));
    } else if ((v === ">" || v === ">>") && printDepth === depth) {
      out.writes.push(lone(tokens, i + 1));
    } else if (v === "<" && tokens.slice(Math.max(0, i - 2), i).some((x) => x.v === "getline")) {
      out.reads.push(lone(tokens, i + 1));
    }
  }
  return out;
}
