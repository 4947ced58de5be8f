/**
 * A reader of git's configuration file syntax (git-config(1), "CONFIGURATION FILE"), enough to
 * know which keys a repository sets and which files it includes. Written after git's own parser
 * (`config.c`): the same section, subsection, name, quoting, escaping, continuation and comment
 * rules, so a key git reads is a key this reads.
 *
 * @module
 */

/** One `key = value` of a configuration file. */
export interface GitConfigEntry {
  /** `section[.subsection].name`: section and name lower-cased, the subsection as written. */
  key: string;
  /** The value after unquoting and unescaping; `"true"` for a key written without `=`. */
  value: string;
  /** The 1-based line it starts on. */
  line: number;
}

/** What {@linkcode parseGitConfig} found. */
export interface ParsedGitConfig {
  entries: GitConfigEntry[];
  /**
   * Why the text is not valid git configuration, or `undefined` when it is. git refuses to run
   * with such a file; the entries read up to that point are still returned.
   */
  error?: string;
}

/**
 * Parse the text of a git configuration file.
 *
 * @param text the file's content
 * @returns the entries in order, and the first syntax error if any
 *
 * @example
 * ```ts
 * import { parseGitConfig } from "./parse_git_config.ts";
 * const { entries } = parseGitConfig('[Core]\n\tFSMonitor = "./watch" ; a comment\n[diff "x"] textconv = cat');
 * if (entries[0].key !== "core.fsmonitor" || entries[0].value !== "./watch") throw new Error();
 * if (entries[1].key !== "diff.x.textconv") throw new Error(entries[1].key);
 * ```
 */
export function parseGitConfig(text: string): ParsedGitConfig {
  const entries: GitConfigEntry[] = [];
  let i = text.startsWith("\uFEFF") ? 1 : 0;
  let line = 1;
  let section: string | null = null;
  const fail = (why: string): ParsedGitConfig => ({ entries, error: `line ${line}: ${why}` });
  const skipComment = () => {
    while (i < text.length && text[i] !== "\n") i++;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "\n") {
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") i++;
    else if (c === "#" || c === ";") skipComment();
    else if (c === "[") {
      const header = parseHeader(text, i + 1);
      if (typeof header === "string") return fail(header);
      section = header.section;
      i = header.end;
    } else if (/[A-Za-z]/.test(c)) {
      if (section === null) return fail("a key outside any section");
      let name = "";
      while (i < text.length && /[A-Za-z0-9-]/.test(text[i])) name += text[i++];
      while (text[i] === " " || text[i] === "\t") i++;
      const start = line;
      let value = "true";
      if (text[i] === "=") {
        const parsed = parseValue(text, i + 1);
        if (typeof parsed === "string") return fail(parsed);
        value = parsed.value;
        line += parsed.lines;
        i = parsed.end;
      } else if (i < text.length && !"\n\r#;".includes(text[i])) {
        return fail(`unexpected ${JSON.stringify(text[i])} after ${name}`);
      }
      entries.push({ key: `${section}.${name.toLowerCase()}`, value, line: start });
    } else return fail(`unexpected ${JSON.stringify(c)}`);
  }
  return { entries };
}

/** `[section]`, `[section "sub"]` or the old `[section.sub]`, from just after `[`. */
function parseHeader(text: string, at: number): { section: string; end: number } | string {
  let i = at;
  let name = "";
  while (i < text.length && /[A-Za-z0-9.-]/.test(text[i])) name += text[i++];
  if (name === "") return "an empty section name";
  if (text[i] === "]") {
    // `[section.sub]`: the part after the first dot is a subsection, lower-cased.
    const dot = name.indexOf(".");
    const section = dot < 0
      ? name.toLowerCase()
      : `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1).toLowerCase()}`;
    return { section, end: i + 1 };
  }
  if (name.includes(".")) return "a dotted section name with a subsection";
  while (text[i] === " " || text[i] === "\t") i++;
  if (text[i] !== '"') return "a section header without its closing ]";
  i++;
  let sub = "";
  for (; i < text.length && text[i] !== '"'; i++) {
    if (text[i] === "\n") return "a subsection name across lines";
    if (text[i] === "\\") i++;
    if (i < text.length) sub += text[i];
  }
  if (text[i] !== '"' || text[i + 1] !== "]") return "a subsection without its closing ]";
  return { section: `${name.toLowerCase()}.${sub}`, end: i + 2 };
}

/** A value from just after `=`: quotes, escapes, continuations, trailing comments. */
function parseValue(
  text: string,
  at: number,
): { value: string; end: number; lines: number } | string {
  let i = at;
  let value = "";
  let quoted = false;
  let lines = 0;
  // Whitespace is kept only between words (git trims the ends, outside quotes).
  let pending = "";
  while (text[i] === " " || text[i] === "\t") i++;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      if (quoted) return "a quoted value across lines";
      break;
    }
    if (!quoted && (c === ";" || c === "#")) {
      while (i < text.length && text[i] !== "\n") i++;
      break;
    }
    if (!quoted && (c === " " || c === "\t")) {
      pending += c;
      continue;
    }
    if (c === "\r" && text[i + 1] === "\n" && !quoted) continue;
    value += pending;
    pending = "";
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c !== "\\") {
      value += c;
      continue;
    }
    const next = text[++i];
    if (next === "\n") {
      lines++;
      continue; // a continuation line
    }
    if (next === "\r" && text[i + 1] === "\n") {
      i++;
      lines++;
      continue;
    }
    const escapes: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" };
    if (next === undefined || !(next in escapes)) return `a bad escape \\${next ?? ""}`;
    value += escapes[next];
  }
  if (quoted) return "an unterminated quote";
  return { value, end: i, lines };
}
