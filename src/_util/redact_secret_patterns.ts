/**
 * The pattern layer of redaction: secrets recognised by their format or by the name they are
 * assigned to, whether or not odek knows their value (odek-go §5.4, regex layer).
 *
 * @module
 */
import { SECRET_PATTERNS, type SecretPattern } from "./_secret_patterns.ts";

/**
 * Replace recognised secrets in `text` with `[REDACTED]`:
 *
 * - PEM private-key blocks (the BEGIN and END lines stay; an unterminated block is redacted to
 *   the end of the text);
 * - passwords in URLs (`postgres://user:pass@host` → `postgres://user:[REDACTED]@host`);
 * - key formats: OpenAI and Anthropic (`sk-…`, `sk-proj-…`, `sk-ant-…`), GitHub (`ghp_`, `gho_`,
 *   `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), AWS access key ids (`AKIA…`,
 *   `ASIA…`), Slack (`xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-`), Stripe (`sk_live_`, `rk_test_`…),
 *   Google API keys (`AIza…`), npm (`npm_…`), Hugging Face (`hf_…`) and JSON Web Tokens;
 * - `Authorization:` header values and `Bearer` tokens, `.npmrc` `:_authToken=` values and
 *   `.netrc` passwords;
 * - the value of `NAME=value`, `NAME: value`, `export NAME=value` (quoted or not) at the start of
 *   a line, and of `"name": "value"` anywhere, when `NAME` passes `isSecretName`
 *   (`AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`, `apiKey`); the name and the line stay. Values that
 *   are `true`/`false`/`null`-like, or a `$VAR` reference, are kept.
 *
 * Lines are also recognised after an escaped `\n` so the same rules work inside JSON text (tool
 * call arguments). A replacement never removes a quote or a backslash, so JSON stays valid.
 *
 * Limits: a secret in a format not listed, assigned to an innocent name, split over lines,
 * encoded, or inside an unquoted value holding a quote or backslash (only the part before it is
 * replaced) is not recognised.
 *
 * @param text any text
 * @returns the text with every recognised secret replaced; idempotent
 *
 * @example A .env file keeps its names and its non-secret lines
 * ```ts
 * import { redactSecretPatterns } from "./redact_secret_patterns.ts";
 * const env = "PORT=8080\nDB_PASSWORD=hunter2-x\nexport GITHUB_TOKEN=\"abc def\"\n";
 * const out = redactSecretPatterns(env);
 * if (out !== 'PORT=8080\nDB_PASSWORD=[REDACTED]\nexport GITHUB_TOKEN="[REDACTED]"\n') throw new Error(out);
 * ```
 */
export function redactSecretPatterns(
  text: string,
  options: RedactSecretPatternsOptions = {},
): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = applyPattern(out, pattern, options.onSecret);
  return out;
}

/** Options for {@linkcode redactSecretPatterns}. */
export interface RedactSecretPatternsOptions {
  /** Called with each secret value replaced (quotes removed; PEM blocks are not reported). */
  onSecret?: (value: string) => void;
}

/** Longest piece scanned at once after the regex engine ran out of stack on the whole text. */
const WINDOW_CHARS = 256 * 1024;

/**
 * Replace every match of one pattern. Very long quoted values (megabytes of escapes in one JSON
 * string) can exhaust the regex engine's backtracking stack; the text is then scanned in pieces
 * cut at line breaks (raw or JSON-escaped) where possible, so redaction never crashes the caller.
 */
function applyPattern(
  text: string,
  pattern: SecretPattern,
  onSecret: ((value: string) => void) | undefined,
): string {
  try {
    return applyWhole(text, pattern, onSecret);
  } catch (error) {
    if (!(error instanceof RangeError) || text.length <= WINDOW_CHARS) throw error;
    let out = "";
    for (let start = 0; start < text.length;) {
      const end = pieceEnd(text, start);
      out += applyPattern(text.slice(start, end), pattern, onSecret);
      start = end;
    }
    return out;
  }
}

/** End of the piece starting at `start`: after the last line break in its second half. */
function pieceEnd(text: string, start: number): number {
  const limit = Math.min(start + WINDOW_CHARS, text.length);
  if (limit === text.length) return limit;
  const half = start + WINDOW_CHARS / 2;
  const raw = text.lastIndexOf("\n", limit - 1);
  const escaped = text.lastIndexOf("\\n", limit - 2);
  const cut = Math.max(raw >= half ? raw + 1 : -1, escaped >= half ? escaped + 2 : -1);
  return cut > start ? cut : limit;
}

/** Replace every match of one pattern, rescanning after a match its replacer keeps. */
function applyWhole(
  text: string,
  pattern: SecretPattern,
  onSecret: ((value: string) => void) | undefined,
): string {
  const regex = new RegExp(pattern.regex.source, pattern.regex.flags);
  let out = "";
  let copied = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const replacement = pattern.replace(match[0], ...match.slice(1));
    if (replacement === undefined) {
      regex.lastIndex = match.index + 1;
      continue;
    }
    if (onSecret && replacement !== match[0]) {
      const secret = pattern.secretOf ? pattern.secretOf(match[0], ...match.slice(1)) : match[0];
      if (secret !== undefined) onSecret(secret);
    }
    out += text.slice(copied, match.index) + replacement;
    copied = match.index + match[0].length;
    if (match[0] === "") regex.lastIndex += 1;
  }
  return out + text.slice(copied);
}
