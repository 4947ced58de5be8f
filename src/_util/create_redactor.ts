/**
 * The one redactor odek applies at every sink: tool results, sessions, events (terminal,
 * `--json`, events file), cassettes and error messages.
 *
 * @module
 */
import { redactKnownValues, type Redactor } from "./redact_known_values.ts";
import { redactSecretPatterns } from "./redact_secret_patterns.ts";

/**
 * Build the redactor for a run: first the known-value layer (each of `secrets` and its base64,
 * hex and URL-encoded forms, see {@linkcode redactKnownValues}), then the pattern layer (key
 * formats and secret-named assignments, see {@linkcode redactSecretPatterns}).
 *
 * @param secrets exact values to hide: the API key, a base-URL password, the values of
 *   secret-named environment variables (`secretEnvValues`)
 * @returns a {@linkcode Redactor} with `forms` (for streamed text) and `patterns: true`
 *
 * @example
 * ```ts
 * import { createRedactor } from "./create_redactor.ts";
 * const redact = createRedactor(["my-own-secret-1"]);
 * const out = redact("a my-own-secret-1 b ghp_0123456789abcdefghijABCDEFGHIJ012345");
 * if (out !== "a [REDACTED] b [REDACTED]" || !redact.patterns) throw new Error(out);
 * ```
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const known = redactKnownValues([...secrets]);
  return Object.assign((text: string) => redactSecretPatterns(known(text)), {
    forms: known.forms,
    patterns: true,
  });
}
