/**
 * Redaction for text that arrives in pieces (streamed model output): a secret split across two
 * deltas must not reach the terminal, `--json` or a log half by half.
 *
 * @module
 */
import type { Redactor } from "./redact_known_values.ts";

/**
 * Holds back just enough streamed text to redact secrets that straddle delta boundaries: at most
 * the length of the longest secret form minus one character, and nothing when there are no
 * secrets. Text before any partial secret form is released (redacted) at once.
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
  #pending = "";

  /** @param redact the redactor; without `forms`, text is redacted per piece with no hold-back */
  constructor(redact: ((text: string) => string) & { forms?: readonly string[] }) {
    this.#redact = redact;
    this.#forms = redact.forms ?? [];
    this.#window = Math.max(0, ...this.#forms.map((form) => form.length));
  }

  /** Add a piece; returns the redacted text that is safe to release now (maybe empty). */
  push(text: string): string {
    if (this.#window === 0) return this.#redact(text);
    this.#pending += text;
    let cut = this.#pending.length - (this.#window - 1);
    if (cut <= 0) return "";
    // Move the cut before any secret form that crosses it, until none does.
    for (let moved = true; moved;) {
      moved = false;
      for (const form of this.#forms) {
        const at = this.#pending.indexOf(form, Math.max(0, cut - form.length + 1));
        if (at !== -1 && at < cut) {
          cut = at;
          moved = true;
        }
      }
    }
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
