/**
 * Whether a variable or key name looks like it holds a secret: the rule shared by the
 * environment-value layer and the `NAME=value` layer of redaction (odek-go §5.4, widened).
 *
 * @module
 */

/** Name segments that mark a name as secret-bearing (compared upper-case, whole segments). */
const SECRET_SEGMENTS: ReadonlySet<string> = new Set([
  "KEY",
  "APIKEY",
  "TOKEN",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "CREDS",
  "AUTH",
  "PRIVATE",
  "PRIVATEKEY",
  "ACCESSKEY",
  "SECRETKEY",
  "ACCESSTOKEN",
  "AUTHTOKEN",
  "APITOKEN",
  "CLIENTSECRET",
]);

/**
 * Last segments that name something about a secret rather than the secret itself
 * (`SSH_AUTH_SOCK`, `PASSWORD_STORE_DIR`, `DB_PASSWORD_FILE`, `PASSWORD_MIN_LENGTH`).
 */
const NOT_SECRET_LAST: ReadonlySet<string> = new Set([
  "DIR",
  "PATH",
  "FILE",
  "SOCK",
  "SOCKET",
  "HOST",
  "PORT",
  "NAME",
  "TYPE",
  "MODE",
  "LENGTH",
  "SIZE",
  "TIMEOUT",
  "ALGORITHM",
  "ENABLED",
  "HINT",
  "PROVIDER",
  "METHOD",
  "DOMAIN",
  "ENDPOINT",
  "URL",
  "URI",
  "SCOPE",
  "SCOPES",
  "ISSUER",
  "AUDIENCE",
  "REGION",
]);

/** Segments that say the value is meant to be public (`PUBLIC_KEY`, `STRIPE_PUBLISHABLE_KEY`). */
const PUBLIC_SEGMENTS: ReadonlySet<string> = new Set(["PUBLIC", "PUBLISHABLE"]);

/**
 * Split `name` into segments on `_`, `-`, `.` and camelCase boundaries (`apiKey` → `API`,
 * `KEY`; `APIKey` → `API`, `KEY`), then call it secret when some segment is one of KEY, APIKEY,
 * TOKEN, SECRET(S), PASSWORD, PASSWD, PASS, PASSPHRASE, CREDENTIAL(S), CREDS, AUTH, PRIVATE,
 * PRIVATEKEY, ACCESSKEY, SECRETKEY, ACCESSTOKEN, AUTHTOKEN, APITOKEN or CLIENTSECRET — unless the
 * last segment says the value is only about the secret (DIR, PATH, FILE, SOCK, SOCKET, HOST,
 * PORT, NAME, TYPE, MODE, LENGTH, SIZE, TIMEOUT, ALGORITHM, ENABLED, HINT, PROVIDER, METHOD,
 * DOMAIN, ENDPOINT, URL, URI, SCOPE(S), ISSUER, AUDIENCE, REGION) or a segment says it is public
 * (PUBLIC, PUBLISHABLE). Segments match whole, so `KEYBOARD_LAYOUT`, `MONKEY` and `AUTHOR` are not
 * secret.
 *
 * @param name an environment variable or key name, e.g. `AWS_SECRET_ACCESS_KEY` or `clientSecret`
 * @returns whether its value should be redacted
 *
 * @example Whole segments only
 * ```ts
 * import { isSecretName } from "./is_secret_name.ts";
 * if (!isSecretName("GITHUB_TOKEN") || !isSecretName("apiKey")) throw new Error("missed");
 * if (isSecretName("KEYBOARD_LAYOUT") || isSecretName("SSH_AUTH_SOCK")) throw new Error("over");
 * ```
 */
export function isSecretName(name: string): boolean {
  const segments = name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toUpperCase()
    .split(/[_\-.\s]+/)
    .filter((segment) => segment !== "");
  if (segments.length === 0) return false;
  if (NOT_SECRET_LAST.has(segments[segments.length - 1])) return false;
  if (segments.some((segment) => PUBLIC_SEGMENTS.has(segment))) return false;
  return segments.some((segment) => SECRET_SEGMENTS.has(segment));
}
