/**
 * A fetch wrapper that looks at a chat-completions response before it is parsed: a 200 that
 * is not an event stream (a web page, a JSON body, plain text) fails at once, saying what came
 * back and what to check; error bodies are cut to a bounded size.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { describeBody, looksLikeMarkup, oneLine } from "./_describe_body.ts";
import { baseUrlHint, displayURL, providerMessage, scrubSecret } from "./_model_error.ts";

/** What the guard needs to word its errors. */
export interface GuardResponseOptions {
  /** The base URL, for messages. */
  baseURL: string;
  /** Replaced by `[redacted]` in anything quoted. */
  apiKey: string;
  /** Bytes of an error body passed on to the parser; the rest is dropped. @default 65_536 */
  maxErrorBodyBytes?: number;
}

/**
 * Thrown by the guarded fetch for a 2xx that is not an event stream: the error to report, and
 * whether another attempt may help (a JSON error object that reads as transient, e.g. a gateway's
 * "upstream overloaded" sent with status 200).
 */
export class NonStreamResponseError extends Error {
  /**
   * @param error what `complete()` throws if it is not retried (`MODEL_PROTOCOL`/`MODEL_ERROR`)
   * @param transient whether the retry policy may try again
   */
  constructor(readonly error: OdekError, readonly transient: boolean) {
    super(error.message);
    this.name = "NonStreamResponseError";
  }
}

/** What reads as a passing fault in an error object sent with a 200 (as in a stream's). */
const TRANSIENT = /overload|rate.?limit|server_error|timeout|timed out|unavailable|try again/i;
const QUOTA_WORDS = /quota|billing|balance|credit/i;

/** Bytes read from a non-stream 200 to say what it is. */
const PEEK_BYTES = 4096;

/**
 * Wraps `inner`. A 2xx whose `content-type` is `text/event-stream` passes untouched; another 2xx
 * is peeked at: an empty body or one that starts like SSE (`data:`, `event:`, `:`) passes (the
 * stream checks judge it), anything else throws. A non-2xx body is capped.
 *
 * Source: issue 14, case 9 (a base URL serving a web page was "cut after 0 chunks" and retried
 * for 92 s).
 *
 * @throws {NonStreamResponseError} from the returned fetch, for a 2xx that is not a stream
 */
export function guardResponse(inner: typeof fetch, options: GuardResponseOptions): typeof fetch {
  const limit = options.maxErrorBodyBytes ?? 65_536;
  return async (input, init) => {
    const response = await inner(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (response.body === null || /text\/event-stream/i.test(type)) return response;
    if (!response.ok) return rebuild(response, capped(response.body, limit));
    const reader = response.body.getReader();
    const head: Uint8Array[] = [];
    let size = 0;
    let done = false;
    while (size < PEEK_BYTES) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      head.push(next.value);
      size += next.value.length;
    }
    const text = new TextDecoder().decode(concat(head));
    if (text.trim() === "" || /^\s*(?:data|event|id|retry)?:/.test(text)) {
      return rebuild(response, replay(head, done ? undefined : reader));
    }
    reader.cancel().catch(() => {});
    throw nonStreamError(text, type, response.status, options);
  };
}

function nonStreamError(
  text: string,
  type: string,
  status: number,
  options: GuardResponseOptions,
): NonStreamResponseError {
  const where = displayURL(options.baseURL);
  const shownType = type === "" ? "no content type" : oneLine(type.split(";")[0], 60);
  const hint = `requests go to ${where}/chat/completions; ${baseUrlHint(options.baseURL)}`;
  let what: string;
  let check: string;
  let transient = false;
  if (looksLikeMarkup(text, type)) {
    what = `${describeBody(text, type)} (${shownType})`;
    check = `The base URL probably points at a website, not the API: ${hint}`;
  } else {
    const json = parseJson(text);
    const error = json?.error;
    if (error !== undefined) {
      const said = scrubSecret(providerMessage(error) ?? "", options.apiKey);
      transient = TRANSIENT.test(said) && !QUOTA_WORDS.test(said);
      what = `an error instead of a stream: ${oneLine(said, 300)}`;
      check = "Check the model name and the request the provider expects.";
    } else if (json?.object === "chat.completion" || Array.isArray(json?.choices)) {
      what = "a whole JSON reply instead of an event stream";
      check = `The server ignores "stream": true; odek needs a server that streams.`;
    } else {
      what = `${json === undefined ? "data" : "JSON"} that is not an event stream (${shownType}): ${
        describeBody(scrubSecret(text, options.apiKey), type, 120)
      }`;
      check = `Check that the base URL is an OpenAI-compatible API: ${hint}`;
    }
  }
  return new NonStreamResponseError(
    new OdekError(
      "MODEL_PROTOCOL",
      `The model at ${where} answered HTTP ${status} with ${what}. ${check}`,
    ),
    transient,
  );
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : {};
  } catch {
    return undefined;
  }
}

function rebuild(response: Response, body: ReadableStream<Uint8Array>): Response {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const { status, statusText } = response;
  return new Response(body, { status, statusText, headers });
}

/** The peeked chunks, then the rest of `reader`. */
function replay(
  head: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    async pull(out) {
      if (next < head.length) return out.enqueue(head[next++]);
      if (reader === undefined) return out.close();
      try {
        const chunk = await reader.read();
        if (chunk.done) out.close();
        else out.enqueue(chunk.value);
      } catch (err) {
        out.error(err);
      }
    },
    cancel(reason) {
      return reader?.cancel(reason);
    },
  });
}

/** At most `limit` bytes of `body`; the rest is cancelled. */
function capped(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream({
    async pull(out) {
      const chunk = await reader.read().catch((err) => {
        out.error(err);
        return undefined;
      });
      if (chunk === undefined) return;
      if (chunk.done) return out.close();
      const room = limit - seen;
      seen += chunk.value.length;
      out.enqueue(chunk.value.length <= room ? chunk.value : chunk.value.slice(0, room));
      if (seen >= limit) {
        reader.cancel().catch(() => {});
        out.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
