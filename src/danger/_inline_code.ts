/**
 * Shell command lines written as literals inside inline interpreter code (`python -c`,
 * `node -e`, `perl -e`, `ruby -e`, `php -r`): the argument of `os.system("…")`,
 * `subprocess.run([…])`, `execSync("…")`, `system "…"`, and backquotes where the language
 * runs them. A heuristic over literals: code that builds its command at run time is still
 * only `code_execution` (contained), see docs/classifier.md.
 *
 * @module
 */

const CALL =
  /\b(?:system|popen|exec[lv]?p?e?|execSync|execFileSync|execFile|spawn|spawnSync|check_output|check_call|call|run|Popen|getoutput|getstatusoutput|shell_exec|passthru|proc_open|Command)\s*(?:\(\s*)?(\[[^\]]*\]|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`(?:\\.|[^`\\])*`)/g;
const LITERAL = /"((?:\\.|[^"\\])*)"|'((?:\\.|[^'\\])*)'|`((?:\\.|[^`\\])*)`/g;

function unquote(literal: string): string {
  const m = /^["'`]([\s\S]*)["'`]$/.exec(literal);
  return (m ? m[1] : literal).replace(/\\(.)/g, "$1");
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The command lines `code` (in the language `verb` runs) passes to a shell or exec call. */
export function embeddedCommands(verb: string, code: string): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(CALL)) {
    const argument = m[1];
    if (argument.startsWith("[")) {
      const words = [...argument.matchAll(LITERAL)].map((w) => unquote(w[0]));
      if (words.length > 0) out.push(words.map(shellQuote).join(" "));
    } else out.push(unquote(argument));
  }
  if (/^(perl|ruby|php)$/.test(verb)) {
    for (const m of code.matchAll(/`((?:\\.|[^`\\])*)`|\bq[xX]\s*\{([^}]*)\}|%x\(([^)]*)\)/g)) {
      out.push((m[1] ?? m[2] ?? m[3]).replace(/\\(.)/g, "$1"));
    }
  }
  return out;
}
