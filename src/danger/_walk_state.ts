/**
 * What the walk knows at a point of a script, and how branches join: after `a && X=1`, `if`,
 * `case` or a loop, a variable holds every value any path could have left in it, so a
 * conditional assignment can never hide the value that really reaches a command.
 *
 * @module
 */

/** More alternatives than this make a variable unknown. */
const MAX_VALUES = 16;

/** What the walk knows at a point of the program. */
export interface WalkState {
  /** The working directory; null when a `cd` made it unknown. */
  cwd: string | null;
  /** Shell variables: every value the variable may hold, or null when unknown. */
  vars: Map<string, string[] | null>;
  /** The current `$IFS`. */
  ifs: string;
  /** Functions defined so far: name → the source text of the body. */
  funcs: Map<string, string>;
  /**
   * Files whose content the script itself produced: absolute path → the content, or null when
   * it came from a source only the run knows (a `<(…)` of a download). The file system, so
   * shared by every copy (a pipeline stage's writes are seen after the pipeline).
   */
  readonly files: Map<string, string | null>;
  /** Functions being expanded (shared by every copy): stops recursion. */
  readonly active: Set<string>;
  /** The next `/dev/fd/N` a process substitution gets (shared by every copy). */
  readonly fd: { next: number };
}

/** A fresh state for a program run in `cwd`. */
export function initialState(cwd: string | null): WalkState {
  return {
    cwd,
    vars: new Map(),
    ifs: " \t\n",
    funcs: new Map(),
    files: new Map(),
    active: new Set(),
    fd: { next: 63 },
  };
}

/** An independent copy (a subshell, a branch); `files`, `active` and `fd` stay shared. */
export function copyState(st: WalkState): WalkState {
  return {
    cwd: st.cwd,
    vars: new Map(st.vars),
    ifs: st.ifs,
    funcs: new Map(st.funcs),
    files: st.files,
    active: st.active,
    fd: st.fd,
  };
}

function joinValues(a: string[] | null | undefined, b: string[] | null | undefined) {
  if (a === undefined && b === undefined) return undefined;
  if (!a || !b) return null;
  const all = [...new Set([...a, ...b])];
  return all.length > MAX_VALUES ? null : all;
}

/** Join `from` (a path that may or may not have run) into `into`. */
export function mergeState(into: WalkState, from: WalkState): void {
  for (const name of new Set([...into.vars.keys(), ...from.vars.keys()])) {
    into.vars.set(name, joinValues(into.vars.get(name), from.vars.get(name)) ?? null);
  }
  if (into.cwd !== from.cwd) into.cwd = null;
  if (into.ifs !== from.ifs) into.ifs = [...new Set(into.ifs + from.ifs)].join("");
  for (const [name, body] of from.funcs) {
    const mine = into.funcs.get(name);
    into.funcs.set(name, mine === undefined || mine === body ? body : `${mine}\n${body}`);
  }
}

/** True when two states would classify the same commands the same way. */
export function sameState(a: WalkState, b: WalkState): boolean {
  const vars = (st: WalkState) => JSON.stringify([...st.vars].sort());
  return a.cwd === b.cwd && a.ifs === b.ifs && vars(a) === vars(b) && a.funcs.size === b.funcs.size;
}

/** After code nobody can read ran in this shell: every variable may hold anything. */
export function forgetVariables(st: WalkState): void {
  for (const name of st.vars.keys()) st.vars.set(name, null);
  st.files.clear();
}
