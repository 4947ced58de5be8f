/**
 * Character-level word values: each character remembers whether it was quoted, so brace
 * expansion applies only to literal unquoted braces and field splitting only to unquoted
 * expansion results, as in Bash.
 *
 * @module
 */

/**
 * A partly evaluated word: `k[i]` is 0 for a quoted character (or a run-time marker), 1 for a
 * literal unquoted one, 2 for one produced by an unquoted expansion. `\u0002` marks a quoted
 * empty string, so `""` still makes a field.
 */
export interface Chars {
  s: string;
  k: number[];
}

const MAX_FIELDS = 256;

/** A run of characters of one kind. */
export function lit(text: string, kind: number): Chars {
  return { s: text, k: new Array<number>(text.length).fill(kind) };
}

function slice(c: Chars, from: number, to = c.s.length): Chars {
  return { s: c.s.slice(from, to), k: c.k.slice(from, to) };
}

/** The characters of `parts`, in order. */
export function concat(...parts: Chars[]): Chars {
  return { s: parts.map((p) => p.s).join(""), k: parts.flatMap((p) => p.k) };
}

function range(body: string): string[] | null {
  const numeric = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(body);
  if (numeric) {
    const [from, to] = [Number(numeric[1]), Number(numeric[2])];
    const step = Math.abs(Number(numeric[3] ?? 1)) || 1;
    const out: string[] = [];
    for (let n = from; from <= to ? n <= to : n >= to; n += from <= to ? step : -step) {
      out.push(String(n));
      if (out.length >= MAX_FIELDS) break;
    }
    return out;
  }
  const alpha = /^([a-zA-Z])\.\.([a-zA-Z])$/.exec(body);
  if (!alpha) return null;
  const [a, b] = [alpha[1].charCodeAt(0), alpha[2].charCodeAt(0)];
  const out: string[] = [];
  for (let n = a; a <= b ? n <= b : n >= b; n += a <= b ? 1 : -1) out.push(String.fromCharCode(n));
  return out;
}

/** Bash brace expansion (`{a,b}`, `{1..3}`) over literal unquoted braces only. */
export function braceExpand(c: Chars, budget = { left: MAX_FIELDS }): Chars[] {
  for (let i = 0; i < c.s.length; i++) {
    if (c.s[i] !== "{" || c.k[i] !== 1) continue;
    let depth = 0;
    let close = -1;
    const commas: number[] = [];
    for (let j = i + 1; j < c.s.length; j++) {
      if (c.k[j] !== 1) continue;
      if (c.s[j] === "{") depth++;
      else if (c.s[j] === "}") {
        if (depth === 0) {
          close = j;
          break;
        }
        depth--;
      } else if (c.s[j] === "," && depth === 0) commas.push(j);
    }
    if (close < 0) return [c];
    let options: Chars[];
    if (commas.length > 0) {
      const bounds = [i, ...commas, close];
      options = bounds.slice(1).map((end, n) => slice(c, bounds[n] + 1, end));
    } else {
      const values = range(c.s.slice(i + 1, close));
      if (values === null) continue;
      options = values.map((v) => lit(v, 1));
    }
    const prefix = slice(c, 0, i);
    const suffix = slice(c, close + 1);
    const out: Chars[] = [];
    for (const option of options) {
      if (budget.left <= 0) break;
      for (const expanded of braceExpand(concat(prefix, option, suffix), budget)) {
        out.push(expanded);
        budget.left--;
      }
    }
    return out;
  }
  return [c];
}

/** Split on unquoted expansion characters that are in `ifs`; drop empty unquoted fields. */
export function splitFields(c: Chars, ifs: string): string[] {
  const out: string[] = [];
  let field = "";
  const flush = () => {
    if (field !== "") out.push(field.replaceAll("\u0002", ""));
    field = "";
  };
  for (let i = 0; i < c.s.length; i++) {
    if (c.k[i] === 2 && ifs.includes(c.s[i])) flush();
    else field += c.s[i];
  }
  flush();
  return out;
}
