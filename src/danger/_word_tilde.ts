/**
 * Tilde expansion of a partly evaluated word: `~` and `~/x` at the start of a word, `~user`,
 * `~+`/`~-`, and in assignment-like words after `=` and `:` (`PATH=~/bin:~/x`, and arguments
 * such as `dd of=~/x`, which Bash expands outside POSIX mode).
 *
 * @module
 */
import { DYNAMIC } from "./_types.ts";
import { type Chars, concat, lit } from "./_word_chars.ts";

/** What tilde expansion needs to know. */
export interface TildeHooks {
  home: string;
  /** The working directory (`~+`); null when unknown. */
  cwd: string | null;
}

function tildeAt(c: Chars, at: number, stops: string, hooks: TildeHooks): Chars {
  if (c.s[at] !== "~" || c.k[at] !== 1) return c;
  const ends = (ch: string) => ch === "/" || stops.includes(ch);
  let end = at + 1;
  while (end < c.s.length && !ends(c.s[end]) && c.k[end] === 1) end++;
  if (end < c.s.length && !ends(c.s[end])) return c;
  const user = c.s.slice(at + 1, end);
  const home = user === ""
    ? hooks.home
    : user === "+"
    ? hooks.cwd ?? DYNAMIC
    : user === "-"
    ? DYNAMIC
    : user === "root"
    ? "/root"
    : /^[a-z_][a-z0-9_.-]*$/i.test(user)
    ? `/home/${user}`
    : null;
  if (home === null) return c;
  const before = { s: c.s.slice(0, at), k: c.k.slice(0, at) };
  return concat(before, lit(home, 0), { s: c.s.slice(end), k: c.k.slice(end) });
}

/**
 * Expand the tildes of `c`; `assignment` for the value of an assignment (expands after every
 * unquoted `:` too).
 */
export function expandTilde(c: Chars, assignment: boolean, hooks: TildeHooks): Chars {
  let out = tildeAt(c, 0, assignment ? ":" : "", hooks);
  const prefix = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(out.s)?.[0];
  const unquoted = prefix !== undefined && out.k.slice(0, prefix.length).every((k) => k === 1);
  if (!assignment && !unquoted) return out;
  const from = assignment ? 0 : prefix!.length;
  if (!assignment) out = tildeAt(out, from, ":", hooks);
  for (let i = from; i < out.s.length; i++) {
    if (out.s[i] === ":" && out.k[i] === 1) out = tildeAt(out, i + 1, ":", hooks);
  }
  return out;
}
