/**
 * Maps whatever a model request (the transport or the fetch under it) threw into odek's error
 * family.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { describeBody, looksLikeMarkup } from "./_describe_body.ts";
import { ModelApiError, ModelConnectionError } from "./_chat_transport.ts";

/** What the mapping needs to know about the request. */
export interface ModelErrorContext {
  /** The base URL, for messages (credentials in it are dropped). */
  baseURL: string;
  /** Never appears in a message: every occurrence is replaced. */
  apiKey: string;
  /** The per-request timeout, for the timeout message. */
  requestTimeoutMs: number;
  /** The caller's signal: once aborted, its reason is thrown instead. */
  signal?: AbortSignal;
  /** Whether the error came while reading the stream (after the response started). */
  midStream: boolean;
}

/** Cap on the provider's error text kept in a message, in characters. */
const PROVIDER_MESSAGE_LIMIT = 500;

/**
 * Turns a transport or fetch failure into the error `complete()` throws: the caller's abort reason,
 * an {@linkcode OdekError} found in the cause chain (e.g. `CASSETTE_MISMATCH`), or a new
 * `MODEL_UNREACHABLE` / `MODEL_ERROR` / `MODEL_PROTOCOL`.
 */
export function toModelError(err: unknown, ctx: ModelErrorContext): unknown {
  if (ctx.signal?.aborted) return ctx.signal.reason ?? new DOMException("Aborted", "AbortError");
  const inner = findOdekError(err);
  if (inner) return inner;
  const where = displayURL(ctx.baseURL);
  const scrub = (text: string) => scrubSecret(text, ctx.apiKey);
  const detail = scrub(causeText(err));
  if (err instanceof ModelApiError && err.status !== undefined) {
    const provider = scrub(statusErrorText(err.error, err.body));
    return new OdekError(
      "MODEL_ERROR",
      `The model at ${where} answered HTTP ${err.status}: ${truncate(provider)}${
        notFoundHint(err.status, provider, ctx.baseURL)
      }`,
      { cause: err },
    );
  }
  if (err instanceof ModelConnectionError) {
    return new OdekError(
      "MODEL_UNREACHABLE",
      `Cannot reach the model at ${where}: ${connectionReason(detail)}. ` +
        `Check --base-url / ODEK_BASE_URL and that the server is running.`,
      { cause: err },
    );
  }
  if (err instanceof ModelApiError) {
    const provider = scrub(providerMessage(err.error) ?? err.message);
    return new OdekError(
      "MODEL_ERROR",
      `The model at ${where} reported an error in its stream: ${truncate(provider)}`,
      { cause: err },
    );
  }
  if (err instanceof SyntaxError) {
    return new OdekError(
      "MODEL_PROTOCOL",
      `The model at ${where} sent a stream chunk that is not valid JSON (${scrub(err.message)}). ` +
        `Check that the base URL points at an OpenAI-compatible chat-completions API.`,
      { cause: err },
    );
  }
  return new OdekError(
    "MODEL_PROTOCOL",
    `The ${ctx.midStream ? "stream" : "request"} to the model at ${where} failed: ` +
      `${truncate(detail)}. Retry the run; if it keeps happening, check the provider.`,
    { cause: err },
  );
}

/** The first {@linkcode OdekError} in the cause chain of `err`. */
export function findOdekError(err: unknown): OdekError | undefined {
  let current = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof OdekError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The error and its causes as one line of text. */
export function causeText(err: unknown): string {
  const parts: string[] = [];
  let current = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    parts.push(current instanceof Error ? current.message : String(current));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(": ");
}

function connectionReason(detail: string): string {
  const port = /port (\d+) (?:is|are) blocked/i.exec(detail);
  if (port) {
    return `fetch refuses port ${
      port[1]
    } (one of the ports the fetch standard blocks); serve the model on another port`;
  }
  if (/refused/i.test(detail)) return "connection refused";
  if (/dns error|lookup address|name or service not known|nodename nor servname/i.test(detail)) {
    return "the host name does not resolve (DNS lookup failed)";
  }
  if (/reset/i.test(detail)) return "the connection was reset";
  if (/certificate|tls|ssl/i.test(detail)) return `TLS failed (${truncate(detail, 200)})`;
  return truncate(detail, 200);
}

/**
 * The provider's words for an HTTP error: the `error.message` of a JSON body, else the body
 * itself, a web page named by its title, never dumped.
 */
export function statusErrorText(error: unknown, body: string | undefined): string {
  const fromJson = providerMessage(error);
  if (fromJson !== undefined) return fromJson;
  if (body === undefined || body.trim() === "") return "(no body)";
  return looksLikeMarkup(body) ? describeBody(body) : body;
}

/** After a 404/405 on the chat route: which part of the base URL or model id to check. */
function notFoundHint(status: number, provider: string, baseURL: string): string {
  if (status !== 404 && status !== 405) return "";
  if (/\bmodel\b/i.test(provider) && !/web page/.test(provider)) {
    return ". Check the model id (--model / model): the provider does not serve it to this key.";
  }
  return `. Nothing serves POST ${displayURL(baseURL)}/chat/completions: ${baseUrlHint(baseURL)}`;
}

/** What to check in a base URL: the `/v1` most servers need, when it has no version segment. */
export function baseUrlHint(baseURL: string): string {
  const where = displayURL(baseURL);
  let path = "";
  try {
    path = new URL(baseURL).pathname;
  } catch {
    // displayURL already showed it as it is.
  }
  return /\/v\d+(?:beta|alpha)?\d*(?:\/|$)/i.test(path)
    ? `check --base-url / baseUrl against the provider's documented API root.`
    : `most servers serve the API under /v1, so try --base-url ${where}/v1.`;
}

/** The provider's error message from a {@linkcode ModelApiError}'s `error` field. */
export function providerMessage(error: unknown): string | undefined {
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  if (typeof message === "string") return message;
  return error === undefined || error === null ? undefined : JSON.stringify(error);
}

/** The URL without user info, query or fragment. */
export function displayURL(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return url;
  }
}

/** `text` with every occurrence of `secret` (4+ characters) replaced by `[redacted]`. */
export function scrubSecret(text: string, secret: string): string {
  return secret.length >= 4 ? text.replaceAll(secret, "[redacted]") : text;
}

/** `text` on one line, at most `limit` characters. */
export function truncate(text: string, limit = PROVIDER_MESSAGE_LIMIT): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= limit ? line : `${line.slice(0, limit)}…`;
}
