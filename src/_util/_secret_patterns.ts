/**
 * The secret formats the pattern layer of redaction recognises, most specific first. Each entry
 * is a global regex and a replacer; replacements never remove a quote or a backslash, so text
 * that is itself JSON (tool-call arguments) stays valid JSON after redaction.
 *
 * @module
 */
import { isSecretName } from "./is_secret_name.ts";

/** The text that replaces a secret. */
export const REDACTED = "[REDACTED]";

/** One recognised format. */
export interface SecretPattern {
  /** Short name, used in tests and docs. */
  name: string;
  /** A global regex. */
  regex: RegExp;
  /**
   * Builds the replacement from the match and its groups, or returns `undefined` to keep the
   * match and look for another one starting one character later (a non-secret assignment must not
   * hide a secret one nested in its value).
   */
  replace: (match: string, ...groups: string[]) => string | undefined;
  /**
   * The secret value in a match it replaced (without quotes), so a redactor can learn it and
   * catch it elsewhere; `undefined` when there is nothing to learn. @default the whole match
   */
  secretOf?: (match: string, ...groups: string[]) => string | undefined;
}

const whole = () => REDACTED;

/** Values that are never secrets, whatever the name says. */
const PLAIN_VALUES = /^(?:true|false|null|none|nil|yes|no|on|off|undefined|\[REDACTED\])$/i;
/** A reference to another variable (`$DB_PASSWORD`, `${TOKEN}`), kept so the model can follow it. */
const REFERENCE = /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/;

/** `"…"`, `'…'`, `\"…\"` (inside JSON text), or a bare value up to whitespace, quote or `\`. */
const VALUE = String
  .raw`("[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*'|\\"(?:(?!\\")[^\r\n])*\\"|[^\s"\\]+)`;
/** `=`, `:`, `:=`, `?=`, `+=`, `=>`, with blanks around. */
const SEPARATOR = String.raw`([ \t]*(?::=|\?=|\+=|=>|[=:])[ \t]*)`;
/**
 * The start of a line: the text start, a line break, an escaped `\n`/`\r` inside JSON text, or
 * the opening quote of a string (`{"content":"TOKEN=…"}`).
 */
const LINE_START = String.raw`(^|[\r\n]|\\[nr]|["'])`;

/** A quoted or bare value split into its quote and its inner text. */
function unquote(value: string): { quote: string; inner: string } {
  const quote = value.startsWith('\\"') ? '\\"' : /^["']/.test(value) ? value[0] : "";
  return {
    quote,
    inner: quote === "" ? value : value.slice(quote.length, value.length - quote.length),
  };
}

/** Type names a source line assigns to a secret-named field (`token: string;`). */
const TYPE_NAMES =
  /^(?:string|number|boolean|bigint|any|unknown|never|object|str|int|float|bool|bytes|none|string\?)$/i;
/** Calls, indexing, objects, generics: a bare value that is code, not a secret. */
const CODE = /[()[\]{}<>]/;
/** `settings.API_KEY`, `os.environ`: member access without digits. */
const MEMBER_CHAIN = /^[A-Za-z_$][A-Za-z_$]*(?:\.[A-Za-z_$][A-Za-z_$]*)+$/;

/**
 * Whether an assigned value is worth hiding: not empty, not `true`-like, not a `$VAR` reference,
 * and, when it is bare (unquoted), not code — a type name, a call, an index, an object, a member
 * chain — so source files read as they are (`api_key = os.getenv("API_KEY")`,
 * `token: string;`).
 */
function isSecretValue(inner: string, quoted: boolean): boolean {
  const value = quoted ? inner : inner.replace(/[;,]+$/, "");
  if (value === "" || PLAIN_VALUES.test(value) || REFERENCE.test(value)) return false;
  if (quoted) return true;
  return !TYPE_NAMES.test(value) && !CODE.test(value) && !MEMBER_CHAIN.test(value);
}

/** Replace the value of a secret-named assignment, keeping its quotes. */
function redactValue(value: string): string {
  const { quote, inner } = unquote(value);
  return isSecretValue(inner, quote !== "") ? `${quote}${REDACTED}${quote}` : value;
}

/** The inner value of a secret-named assignment, when it is redacted. */
function assignedSecret(name: string, value: string): string | undefined {
  const { quote, inner } = unquote(value);
  return isSecretName(name) && isSecretValue(inner, quote !== "") ? inner : undefined;
}

/** The formats, in the order they are applied. */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    // PEM private keys (RSA, EC, DSA, OPENSSH, ENCRYPTED, PKCS#8, PGP); an unterminated block is
    // redacted to the end of the text. Public keys and certificates are not secrets.
    name: "pem_private_key",
    regex: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g,
    replace: (_m, label) => `-----BEGIN ${label}----- ${REDACTED} -----END ${label}-----`,
    secretOf: () => undefined,
  },
  {
    // scheme://user:password@host: the password goes, the rest stays readable.
    name: "url_password",
    regex: /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:@\/?#"'\\]*:)([^\s@\/?#"'\\]+)@/g,
    replace: (m, prefix, password) => password === REDACTED ? m : `${prefix}${REDACTED}@`,
    secretOf: (_m, _prefix, password) => password,
  },
  {
    // OpenAI (sk-, sk-proj-, sk-svcacct-) and Anthropic (sk-ant-api03-…): 20+ characters after
    // `sk-`, at least one digit (so `sk-learn-preprocessing-pipeline` is not a key).
    name: "openai_anthropic",
    regex: /(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}/g,
    replace: whole,
  },
  {
    name: "github",
    regex: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g,
    replace: whole,
  },
  { name: "gitlab", regex: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g, replace: whole },
  {
    name: "aws_access_key_id",
    regex: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
    replace: whole,
  },
  {
    name: "slack",
    regex: /(?<![A-Za-z0-9])xox[abprs]-(?=[A-Za-z0-9-]*[0-9])[A-Za-z0-9-]{10,}/g,
    replace: whole,
  },
  {
    name: "stripe",
    regex: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g,
    replace: whole,
  },
  { name: "google_api_key", regex: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}/g, replace: whole },
  { name: "npm", regex: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g, replace: whole },
  {
    name: "huggingface",
    regex: /(?<![A-Za-z0-9_])hf_(?=[A-Za-z]*[0-9])[A-Za-z0-9]{30,}/g,
    replace: whole,
  },
  {
    // JSON Web Tokens: base64url header and payload that both start with `{"` (`eyJ`).
    name: "jwt",
    regex: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: whole,
  },
  {
    // Authorization headers, whatever the scheme.
    name: "authorization_header",
    regex:
      /\b((?:Proxy-)?Authorization[ \t]*[:=][ \t]*(?:(?:Bearer|Basic|Token|Digest)[ \t]+)?)([^\s"\\]+)/gi,
    replace: (m, prefix, value) => value === REDACTED ? m : `${prefix}${REDACTED}`,
    secretOf: (_m, _prefix, value) => value,
  },
  {
    name: "bearer_token",
    regex: /\b(Bearer[ \t]+)([A-Za-z0-9._~+\/-]{20,}=*)/g,
    replace: (_m, prefix) => `${prefix}${REDACTED}`,
    secretOf: (_m, _prefix, token) => token,
  },
  {
    // .npmrc: //registry.example/:_authToken=…, :_auth=…, :_password=…
    name: "npmrc_auth",
    regex: /(:_(?:authToken|auth|password)[ \t]*=[ \t]*)([^\s"\\]+)/g,
    replace: (m, prefix, value) => value === REDACTED ? m : `${prefix}${REDACTED}`,
    secretOf: (_m, _prefix, value) => value,
  },
  {
    // .netrc: machine host login user password secret
    name: "netrc_password",
    regex: /(\bmachine[ \t]+\S+[ \t]+login[ \t]+\S+[ \t]+password[ \t]+)([^\s"\\]+)/g,
    replace: (m, prefix, value) => value === REDACTED ? m : `${prefix}${REDACTED}`,
    secretOf: (_m, _prefix, value) => value,
  },
  {
    // NAME=value, NAME: value, export NAME=value, `- name: value`, at the start of a line (after
    // the `N|` line number `read_file` and `head_tail` put before each line).
    name: "assignment",
    regex: new RegExp(
      `${LINE_START}((?:[0-9]+\\|)?[ \\t]*(?:-[ \\t]+)?(?:export[ \\t]+|set[ \\t]+)?)([A-Za-z_][A-Za-z0-9_.-]*)${SEPARATOR}${VALUE}`,
      "g",
    ),
    replace: (_m, start, lead, name, separator, value) =>
      isSecretName(name) ? `${start}${lead}${name}${separator}${redactValue(value)}` : undefined,
    secretOf: (_m, _start, _lead, name, _separator, value) => assignedSecret(name, value),
  },
  {
    // "name": "value" / 'name': 'value' anywhere (JSON, Python, YAML flow), quoted values only.
    name: "quoted_key",
    regex: new RegExp(
      String
        .raw`(\\?["'])([A-Za-z_][A-Za-z0-9_.-]*)\1${SEPARATOR}(\\"(?:(?!\\")[^\r\n])*\\"|"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"|'[^'\\\r\n]*(?:\\.[^'\\\r\n]*)*')`,
      "g",
    ),
    replace: (_m, quote, name, separator, value) =>
      isSecretName(name) ? `${quote}${name}${quote}${separator}${redactValue(value)}` : undefined,
    secretOf: (_m, _quote, name, _separator, value) => assignedSecret(name, value),
  },
];
