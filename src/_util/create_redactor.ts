/**
 * The one redactor odek applies at every sink: tool results, sessions, events (terminal,
 * `--json`, events file), cassettes and error messages.
 *
 * @module
 */
import { REDACTED } from "./_secret_patterns.ts";
import { redactKnownValues, type Redactor } from "./redact_known_values.ts";
import { redactSecretPatterns } from "./redact_secret_patterns.ts";

/** At most this many values are learned from redacted text (bounds the known-value regex). */
const MAX_LEARNED = 1000;

/**
 * Build the redactor for a run: first the known-value layer (each of `secrets` and its base64,
 * hex and URL-encoded forms, see {@linkcode redactKnownValues}), then the pattern layer (key
 * formats and secret-named assignments, see {@linkcode redactSecretPatterns}).
 *
 * It learns: a value the pattern layer redacts (a `DB_PASSWORD=…` line in a file a tool read, a
 * key) becomes a known value from then on, when it has at least 8 characters with a letter and a
 * digit (so `SORT_KEY=created_at` teaches nothing). A model that read the value and repeats it in
 * prose — where no pattern applies — is redacted too, and so are the value's encoded forms. At
 * most 1000 values are learned. `forms` always lists the current known forms.
 *
 * @param secrets exact values to hide: the API key, a base-URL password, the values of
 *   secret-named environment variables (`secretEnvValues`)
 * @returns a {@linkcode Redactor} with `forms` (for streamed text) and `patterns: true`
 *
 * @example A value redacted by its name is recognised later on its own
 * ```ts
 * import { createRedactor } from "./create_redactor.ts";
 * const redact = createRedactor(["my-own-secret-1"]);
 * const out = redact("a my-own-secret-1 b ghp_0123456789abcdefghijABCDEFGHIJ012345");
 * if (out !== "a [REDACTED] b [REDACTED]" || !redact.patterns) throw new Error(out);
 * redact("DB_PASSWORD=hunter2hunter2\n");
 * if (redact("it was hunter2hunter2") !== "it was [REDACTED]") throw new Error("not learned");
 * ```
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const known = new Set(secrets);
  let learned = 0;
  let layer = redactKnownValues([...known]);
  let grew = false;
  const learn = (value: string) => {
    if (learned >= MAX_LEARNED || known.has(value) || value === REDACTED) return;
    if (value.length < 8 || !/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return;
    known.add(value);
    learned += 1;
    grew = true;
  };
  const redact = (text: string) => {
    const out = redactSecretPatterns(layer(text), { onSecret: learn });
    // One rebuild per call, however many values it taught.
    if (grew) [layer, grew] = [redactKnownValues([...known]), false];
    return out;
  };
  return Object.defineProperties(redact, {
    forms: { get: () => layer.forms, enumerable: true },
    patterns: { value: true, enumerable: true },
  }) as Redactor;
}
