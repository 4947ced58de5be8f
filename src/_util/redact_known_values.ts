/**
 * Known-value redaction: replace the exact values of registered secrets, and the encodings a tool
 * output commonly carries them in, with `[REDACTED]` (odek-go §5.4, known-value layer).
 *
 * @module
 */
import { isSecretName } from "./is_secret_name.ts";

/** The text that replaces a secret. */
const REDACTED = "[REDACTED]";
/** Values shorter than this are not redacted: they would match ordinary text. */
const MIN_SECRET_LENGTH = 8;

/**
 * Build a redactor that replaces each secret value (at least 8 characters; shorter ones are
 * ignored) and its encoded forms with `[REDACTED]`. The forms are: the value itself; base64
 * (standard and URL-safe alphabets, with and without `=` padding); lower- and upper-case hex of its
 * UTF-8 bytes; and its URL encoding (`encodeURIComponent`, and the query form with `+` for
 * spaces). Longer forms are replaced first, in one pass.
 *
 * Limits: a secret base64-encoded as part of a longer string (at a byte offset that is not a
 * multiple of 3), compressed, encrypted or split across writes is not recognised. Egress control,
 * not redaction, is the defence against a determined exfiltration.
 *
 * @param secrets the secret values to hide, e.g. from {@linkcode secretEnvValues}
 * @returns a pure function from text to redacted text (the identity when no secret qualifies),
 *   with `forms`: the exact strings it replaces
 *
 * @example Redact a token from the environment and its base64 form
 * ```ts
 * import { redactKnownValues, secretEnvValues } from "./redact_known_values.ts";
 * const redact = redactKnownValues(secretEnvValues({ SERVICE_TOKEN: "s3cr3t-value" }));
 * const text = `token=s3cr3t-value b64=${btoa("s3cr3t-value")}`;
 * if (redact(text) !== "token=[REDACTED] b64=[REDACTED]") throw new Error(redact(text));
 * ```
 */
export function redactKnownValues(secrets: string[]): Redactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of encodedForms(secret)) forms.add(form);
  }
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return Object.assign((text: string) => text, { forms: [] });
  const alternatives = sorted.map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(alternatives.join("|"), "g");
  return Object.assign((text: string) => text.replace(pattern, REDACTED), { forms: sorted });
}

/**
 * A redaction function that also lists the exact strings it replaces (each secret and its
 * encoded forms, longest first), so streamed text can be redacted across chunk boundaries (see
 * {@linkcode StreamRedactor}).
 */
export interface Redactor {
  (text: string): string;
  readonly forms: readonly string[];
  /**
   * It also redacts secret formats (see `redactSecretPatterns`): streamed text is then held back
   * to word and line boundaries as well. @default false
   */
  readonly patterns?: boolean;
}

/**
 * Pick the values of secret-bearing environment variables: those whose name passes
 * {@linkcode isSecretName} (a whole segment such as KEY, TOKEN, SECRET, PASSWORD, PASSWD,
 * CREDENTIAL(S), AUTH or PRIVATE; odek-go §5.4), so `KEYBOARD_LAYOUT` is not secret. Values
 * shorter than 8 characters are left out (they cannot be redacted safely); duplicates are
 * removed.
 *
 * @param env the environment, e.g. `Deno.env.toObject()`
 * @returns the secret values, in the order first seen
 *
 * @example Only whole segments count
 * ```ts
 * import { redactKnownValues, secretEnvValues } from "./redact_known_values.ts";
 * const values = secretEnvValues({ OPENAI_API_KEY: "sk-abcdefgh", KEYBOARD_LAYOUT: "dvorak-intl" });
 * if (values.length !== 1 || values[0] !== "sk-abcdefgh") throw new Error(String(values));
 * if (redactKnownValues(values)("dvorak-intl") !== "dvorak-intl") throw new Error("over-redacted");
 * ```
 */
export function secretEnvValues(env: Record<string, string>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    if (isSecretName(name)) values.add(value);
  }
  return [...values];
}

/** The value and the encodings it is redacted in. */
function encodedForms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const base64 = btoa(String.fromCharCode(...bytes));
  const base64Url = base64.replaceAll("+", "-").replaceAll("/", "_");
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  const uri = encodeURIComponent(secret);
  return [
    secret,
    base64,
    base64.replace(/=+$/, ""),
    base64Url,
    base64Url.replace(/=+$/, ""),
    hex,
    hex.toUpperCase(),
    uri,
    uri.replaceAll("%20", "+"),
  ];
}
