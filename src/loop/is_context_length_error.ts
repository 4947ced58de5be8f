/**
 * Recognises a provider's "the request is longer than the context window" refusal.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";

/** Phrases providers use for a context-length refusal (odek-go §3.1 step 4). */
const PHRASES =
  /context_length_exceeded|maximum context length|context length|context window|token limit|max_input_tokens|input is too long|too many tokens|reduce the length/i;

/**
 * Whether `error` is a context-length refusal: an {@linkcode OdekError} with code
 * `CONTEXT_LENGTH_EXCEEDED` (thrown by the model client), or a `MODEL_ERROR` whose message
 * names one of the phrases providers use (a client that does not classify it yet).
 *
 * @example
 * ```ts
 * import { isContextLengthError } from "./is_context_length_error.ts";
 * import { OdekError } from "../_util/odek_error.ts";
 * if (!isContextLengthError(new OdekError("CONTEXT_LENGTH_EXCEEDED", "too long"))) throw new Error();
 * if (isContextLengthError(new OdekError("MODEL_ERROR", "HTTP 500: overloaded"))) throw new Error();
 * ```
 */
export function isContextLengthError(error: unknown): boolean {
  if (!(error instanceof OdekError)) return false;
  if (error.code === "CONTEXT_LENGTH_EXCEEDED") return true;
  return error.code === "MODEL_ERROR" && PHRASES.test(error.message);
}
