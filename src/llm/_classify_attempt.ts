/**
 * Sorts the failure of one model request into "throw it now" (an abort, a cassette error, a
 * context-length refusal, the caller's own exception) and "a {@linkcode ModelFailure} the retry
 * policy decides on", with the error to throw if it gives up.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import {
  causeText,
  displayURL,
  findOdekError,
  type ModelErrorContext,
  providerMessage,
  scrubSecret,
  toModelError,
  truncate,
} from "./_model_error.ts";
import { messageRetryHintMs, retryAfterMs } from "./_retry_after.ts";
import { ModelTimeoutError } from "./_timed_fetch.ts";
import { ModelApiError, ModelConnectionError } from "./_chat_transport.ts";
import { NonStreamResponseError } from "./_guard_response.ts";
import { type ModelFailure, RETRYABLE_STATUSES } from "./retry_policy.ts";

/** How one failed attempt is handled. */
export type AttemptOutcome =
  | { type: "throw"; error: unknown }
  | { type: "failure"; failure: ModelFailure; error: OdekError };

/** What classification needs beyond {@linkcode ModelErrorContext}. */
export interface ClassifyContext extends ModelErrorContext {
  /** Current time in Unix ms, for `Retry-After` dates. */
  nowMs: number;
  /** The bounds in ms, for messages. */
  connectTimeoutMs: number;
  idleTimeoutMs: number;
}

// Phrases providers use for an over-long prompt (odek-go §3.1 step 4 lists the same family).
const CONTEXT_LENGTH =
  /context[_ ]length|maximum context|context window|context size|too many tokens|reduce the length|input is too long|prompt is too long|max_input_tokens/i;
// A used-up quota, balance or billing limit, however a provider words it (issue 14, case 4):
// "insufficient_quota", "You exceeded your daily quota", "Quota exceeded for metric …", "Your
// credit balance is too low", "Insufficient Balance", "billing hard limit reached". A bare
// mention ("Resource has been exhausted (e.g. check quota)", Vertex's per-minute limit) is not.
const QUOTA = new RegExp(
  [
    String
      .raw`\b(?:exceeded|reached|hit|used up|exhausted all|out of|over|insufficient|no remaining)\b[\w ,'-]{0,40}?\bquota`,
    String.raw`\bquota\b[\w ,'-]{0,40}?\b(?:exceeded|reached|used up|depleted|will reset|resets)`,
    String.raw`\bbilling\b`,
    String.raw`insufficient[_ ](?:quota|balance|funds|credits?)`,
    String.raw`\b(?:credit|account) balance\b`,
    String.raw`\bout of credits\b|\bno credits\b|\binsufficient credits\b`,
    String.raw`\bpayment required\b|\bspend(?:ing)? limit\b|\bmonthly (?:usage|spend) limit\b`,
  ].join("|"),
  "i",
);
/** Error codes and types that name a used-up quota or balance (OpenAI, DeepSeek, OpenRouter, …). */
const QUOTA_CODES =
  /^(?:insufficient_quota|quota_exceeded|billing_hard_limit_reached|billing_not_active|insufficient_balance|insufficient_credits|payment_required|credit_limit_exceeded)$/i;
const TRANSIENT_STREAM_ERROR =
  /overload|rate.?limit|server_error|timeout|timed out|unavailable|try again/i;

/**
 * Classifies what an attempt threw.
 *
 * @param err what the transport (or the stream under it) threw
 * @param ctx the request's context
 */
export function classifyAttempt(err: unknown, ctx: ClassifyContext): AttemptOutcome {
  if (ctx.signal?.aborted) {
    return { type: "throw", error: ctx.signal.reason ?? new DOMException("Aborted", "AbortError") };
  }
  const nonStream = findCause(err, NonStreamResponseError);
  if (nonStream) {
    return nonStream.transient
      ? {
        type: "failure",
        failure: { type: "transient", reason: "stream_error" },
        error: nonStream.error,
      }
      : { type: "throw", error: nonStream.error };
  }
  const inner = findOdekError(err);
  if (inner) return { type: "throw", error: inner };
  const where = displayURL(ctx.baseURL);
  const timeout = findTimeout(err);
  if (timeout) return timeoutOutcome(timeout, where, err);
  const mapped = toModelError(err, ctx) as OdekError;
  if (err instanceof ModelApiError) {
    const provider = providerMessage(err.error) ?? err.message;
    const code = errorField(err.error, "code") ?? errorField(err.error, "type") ?? "";
    const status = err.status;
    if (
      (status === undefined || status === 400 || status === 413 || status === 422) &&
      (code === "context_length_exceeded" || CONTEXT_LENGTH.test(provider))
    ) {
      return { type: "throw", error: contextLengthError(where, status, provider, ctx.apiKey, err) };
    }
    if (status === undefined) {
      // An error object inside a 200 stream: retried only when it reads as transient.
      const transient = RETRYABLE_STATUSES.has(Number(code)) ||
        TRANSIENT_STREAM_ERROR.test(`${code} ${provider}`);
      return transient
        ? { type: "failure", failure: { type: "transient", reason: "stream_error" }, error: mapped }
        : { type: "throw", error: mapped };
    }
    const headers = err.headers ?? new Headers();
    const retryAfter = retryAfterMs(headers, ctx.nowMs) ??
      messageRetryHintMs(provider, ctx.nowMs);
    const type = errorField(err.error, "type") ?? "";
    const quotaExhausted = (status === 402 || status === 403 || status === 429 ||
      status === 400) &&
      (QUOTA_CODES.test(code) || QUOTA_CODES.test(type) || QUOTA.test(provider));
    const failure: ModelFailure = {
      type: "http",
      status,
      ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      ...(quotaExhausted ? { quotaExhausted } : {}),
    };
    return { type: "failure", failure, error: mapped };
  }
  const detail = causeText(err);
  // The fetch standard's "bad ports" (9, 25, 6000, …): no retry can help.
  if (/port \d+ (?:is|are) blocked/i.test(detail)) {
    return { type: "failure", failure: { type: "fatal", reason: "blocked_port" }, error: mapped };
  }
  if (/refused/i.test(detail)) {
    return { type: "failure", failure: { type: "unreachable", reason: "refused" }, error: mapped };
  }
  if (/dns error|lookup address|name or service not known|nodename nor servname/i.test(detail)) {
    return { type: "failure", failure: { type: "unreachable", reason: "dns" }, error: mapped };
  }
  if (/certificate|tls|ssl/i.test(detail)) {
    return { type: "failure", failure: { type: "fatal", reason: "tls" }, error: mapped };
  }
  if (err instanceof SyntaxError) {
    return { type: "failure", failure: { type: "transient", reason: "malformed" }, error: mapped };
  }
  if (
    err instanceof ModelConnectionError ||
    /reset|closed|broken pipe|eof|error reading a body|connection/i.test(detail)
  ) {
    return { type: "failure", failure: { type: "transient", reason: "reset" }, error: mapped };
  }
  return { type: "throw", error: mapped };
}

function findTimeout(err: unknown): ModelTimeoutError | undefined {
  return findCause(err, ModelTimeoutError);
}

// deno-lint-ignore no-explicit-any
function findCause<T>(err: unknown, type: new (...args: any[]) => T): T | undefined {
  let current = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function timeoutOutcome(timeout: ModelTimeoutError, where: string, err: unknown): AttemptOutcome {
  const seconds = `${timeout.limitMs / 1000} s`;
  switch (timeout.kind) {
    case "connect":
      return {
        type: "failure",
        failure: { type: "transient", reason: "connect_timeout" },
        error: new OdekError(
          "MODEL_UNREACHABLE",
          `The model at ${where} did not start answering within ${seconds}. Check that the server ` +
            `is up and not overloaded, or raise timeouts.connectSeconds.`,
          { cause: err },
        ),
      };
    case "idle":
      return {
        type: "failure",
        failure: { type: "transient", reason: "stream_idle" },
        error: new OdekError(
          "MODEL_PROTOCOL",
          `The stream from the model at ${where} stalled: no bytes for ${seconds}. Check the ` +
            `provider, or raise timeouts.streamIdleSeconds.`,
          { cause: err },
        ),
      };
    case "request":
      return {
        type: "failure",
        failure: { type: "fatal", reason: "request_timeout" },
        error: new OdekError(
          "MODEL_UNREACHABLE",
          `The request to the model at ${where} did not finish within ${seconds}, the cap on one ` +
            `request: raise timeouts.requestSeconds if the model needs longer.`,
          { cause: err },
        ),
      };
  }
}

function contextLengthError(
  where: string,
  status: number | undefined,
  provider: string,
  apiKey: string,
  cause: unknown,
): OdekError {
  const http = status === undefined ? "in its stream" : `with HTTP ${status}`;
  return new OdekError(
    "CONTEXT_LENGTH_EXCEEDED",
    `The model at ${where} refused the request ${http} because it exceeds its context window: ` +
      `${truncate(scrubSecret(provider, apiKey))}. Shorten the transcript (start a new session) ` +
      `or set the model's contextWindow in the config.`,
    { cause },
  );
}

function errorField(error: unknown, key: "code" | "type"): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const value = (error as Record<string, unknown>)[key];
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}
