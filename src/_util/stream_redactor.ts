/**
 * Redaction for text that arrives in pieces (streamed model output): a secret split across two
 * deltas must not reach the terminal, `--json` or a log half by half.
 *
 * @module
 */
import { isSecretName } from "./is_secret_name.ts";

/** A run of text without whitespace longer than this is released anyway (bytes of UTF-16). */
const MAX_WORD_HOLD = 8192;
/** An unterminated PEM block or a secret assignment line is held at most this long. */
const MAX_BLOCK_HOLD = 65_536;
/** `NAME=`, `"name":`, `export NAME :=` … : the name part of an assignment. */
//
// A name starts a run of name characters (or follows an escaped `\n`/`\r` in JSON text): the
// pattern layer only matches names there, and trying every position inside a long run made each
// push quadratic in the held text (a 20,000-character word took over a minute to stream).
const NAME_START = String.raw`(?:(?<![A-Za-z0-9_.-])|(?<=\\[nr]))`;
const ASSIGNMENT_NAME = new RegExp(
  String.raw`(["']?)${NAME_START}([A-Za-z_][A-Za-z0-9_.-]*)\1[ \t]*(?::=|\?=|\+=|=>|[=:])`,
  "g",
);
/** A name at the end of the line, its separator still to come. */
const PENDING_NAME = new RegExp(
  String.raw`(["']?)${NAME_START}([A-Za-z_][A-Za-z0-9_.-]*)\1[ \t]*$`,
);

/**
 * Holds back just enough streamed text to redact secrets that straddle delta boundaries. Known
 * values: at most the length of the longest secret form minus one character. With a pattern
 * redactor (`patterns: true`), also: the last word (a key format has no blanks; the word before
 * it too when it is `Bearer`, `Basic`, `Token` or `Digest`), a line holding a secret-named
 * `NAME=` / `"name":` (its value may hold blanks) or a `.netrc` `machine` entry, and an
 * unterminated `-----BEGIN` block.
 * Holds are bounded (a blank-free run past 8192 characters, a line or block past 65,536) so a
 * stream never stalls. Without secrets or patterns nothing is held.
 *
 * @example A secret split across two deltas is never released
 * ```ts
 * import { redactKnownValues } from "./redact_known_values.ts";
 * import { StreamRedactor } from "./stream_redactor.ts";
 * const stream = new StreamRedactor(redactKnownValues(["sk-very-secret-value"]));
 * const out = stream.push("key: sk-very-") + stream.push("secret-value, done") + stream.flush();
 * if (out !== "key: [REDACTED], done") throw new Error(out);
 * ```
 */
export class StreamRedactor {
  readonly #redact: (text: string) => string;
  readonly #forms: readonly string[];
  readonly #window: number;
  readonly #patterns: boolean;
  #pending = "";

  /** @param redact the redactor; without `forms`, text is redacted per piece with no hold-back */
  constructor(
    redact: ((text: string) => string) & { forms?: readonly string[]; patterns?: boolean },
  ) {
    this.#redact = redact;
    this.#forms = redact.forms ?? [];
    this.#window = Math.max(0, ...this.#forms.map((form) => form.length));
    this.#patterns = redact.patterns === true;
  }

  /** Add a piece; returns the redacted text that is safe to release now (maybe empty). */
  push(text: string): string {
    if (this.#window === 0 && !this.#patterns) return this.#redact(text);
    this.#pending += text;
    let cut = this.#pending.length - Math.max(0, this.#window - 1);
    // Move the cut back until no secret form crosses it and no pattern match can.
    for (let moved = true; moved && cut > 0;) {
      moved = false;
      if (this.#patterns) {
        const safe = patternSafeCut(this.#pending.slice(0, cut));
        if (safe < cut) [cut, moved] = [safe, true];
      }
      for (const form of this.#forms) {
        const at = this.#pending.indexOf(form, Math.max(0, cut - form.length + 1));
        if (at !== -1 && at < cut) [cut, moved] = [at, true];
      }
    }
    if (cut <= 0) return "";
    const head = this.#pending.slice(0, cut);
    this.#pending = this.#pending.slice(cut);
    return this.#redact(head);
  }

  /** Release everything held back, redacted. */
  flush(): string {
    const rest = this.#redact(this.#pending);
    this.#pending = "";
    return rest;
  }
}

/** The end of the prefix of `text` that no pattern match can extend past. */
function patternSafeCut(text: string): number {
  let cut = text.length;
  // The last word, and "Bearer"-like words before it.
  let start = text.length;
  const floor = Math.max(0, text.length - MAX_WORD_HOLD - 1);
  while (start > floor && !isSpace(text.charCodeAt(start - 1))) start--;
  if (text.length - start <= MAX_WORD_HOLD) {
    cut = start;
    const before = /(?:Bearer|Basic|Token|Digest)[ \t]+$/i.exec(
      text.slice(Math.max(0, start - 16), start),
    );
    if (before) cut = start - before[0].length;
  }
  // The current line from a secret-named assignment on.
  const lineStart = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r")) + 1;
  if (text.length - lineStart <= MAX_BLOCK_HOLD) {
    const line = text.slice(lineStart);
    const pendingName = PENDING_NAME.exec(line);
    if (pendingName && holdsLine(pendingName[2])) cut = Math.min(cut, lineStart);
    // A .netrc line names its password after blanks.
    if (/^[ \t]*machine[ \t]/.test(line)) cut = Math.min(cut, lineStart);
    for (const match of line.matchAll(ASSIGNMENT_NAME)) {
      if (holdsLine(match[2])) {
        // From the line start, so the released line is redacted in the same context.
        cut = Math.min(cut, lineStart);
        break;
      }
    }
  }
  // An unterminated PEM block.
  const begin = text.lastIndexOf("-----BEGIN");
  if (
    begin !== -1 && text.length - begin <= MAX_BLOCK_HOLD &&
    !/-----END [A-Z0-9 ]*-----/.test(text.slice(begin))
  ) {
    cut = Math.min(cut, begin);
  }
  return cut;
}

/** A name whose value the pattern layer redacts: the rest of its line must arrive first. */
function holdsLine(name: string): boolean {
  return isSecretName(name) || /^(?:proxy-)?authorization$/i.test(name);
}

/** `\s` for one UTF-16 code unit, without a regex per character. */
function isSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d) ||
    (code > 0x7f && /\s/.test(String.fromCharCode(code)));
}
