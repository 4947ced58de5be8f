/**
 * One streamed chat-completions request over `fetch`: the POST, the error body of a failed status,
 * and the server-sent events of a 200 (framed by `eventsource-parser`) as parsed JSON chunks.
 * Retries, timeouts and stream assembly are odek's own and live elsewhere (`_retry_loop.ts`,
 * `_timed_fetch.ts`, `chat_stream_assembler.ts`).
 *
 * @module
 */
import { createParser, type EventSourceMessage, type ParseError } from "eventsource-parser";

/**
 * The endpoint answered with an error: an HTTP status other than 2xx (`status` set), or an error
 * object inside a 200 stream (`status` undefined).
 */
export class ModelApiError extends Error {
  /**
   * @param status the HTTP status, or undefined for an error object inside the stream
   * @param error the body's `error` object (the whole JSON body when it has none), if the body was JSON
   * @param body the body as text when it was not JSON
   * @param headers the response's headers (for `Retry-After` and rate-limit resets)
   */
  constructor(
    readonly status: number | undefined,
    readonly error: unknown,
    readonly body: string | undefined,
    readonly headers: Headers | undefined,
  ) {
    super(apiErrorMessage(status, error, body));
    this.name = "ModelApiError";
  }
}

/** The request never got a response: `cause` is what the fetch threw. */
export class ModelConnectionError extends Error {
  /** @param cause what the fetch threw (a `TypeError` with the OS's reason, a timeout, …) */
  constructor(cause: unknown) {
    super("Connection error.", { cause });
    this.name = "ModelConnectionError";
  }
}

/** Where and how to send. */
export interface ChatTransportOptions {
  /** The API root; the request goes to `<baseURL>/chat/completions`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`. */
  apiKey: string;
  /** Extra headers, sent after (and so over) odek's own. */
  headers?: Record<string, string>;
  /** The fetch to send with (odek's timed and guarded one). */
  fetch: typeof fetch;
}

/** What one request of {@linkcode streamChatCompletion} tells as it goes. */
export interface ChatRequestHooks {
  /** Aborts the request and the body's reading. */
  signal?: AbortSignal;
  /** Told once a 2xx response's headers are in, before its body is read. Must not throw. */
  onResponse?: () => void;
}

/** Largest pending SSE line plus event data, in characters (a server that never ends a line). */
const MAX_EVENT_CHARS = 64 * 1024 * 1024;

/**
 * POSTs `body` as JSON (a string is sent as it is: JSON text already) and yields each `data:` payload of the event stream as parsed JSON, up to
 * `data: [DONE]` or the end of the body (an incomplete last event is dropped, as the EventSource
 * standard says). Leaving the iteration early cancels the body.
 *
 * @throws {ModelConnectionError} when the fetch throws (after an abort, the signal's reason)
 * @throws {ModelApiError} for a non-2xx status, or a chunk that is an error object (or an
 *   `event: error`)
 * @throws {SyntaxError} for a `data:` payload that is not JSON, or an event over 64 Mi characters
 * @throws whatever reading the body throws (a reset, a timeout, the abort reason)
 */
export async function* streamChatCompletion(
  options: ChatTransportOptions,
  body: unknown,
  hooks: ChatRequestHooks = {},
): AsyncGenerator<unknown, void, undefined> {
  const { signal } = hooks;
  let response: Response;
  try {
    response = await options.fetch(`${options.baseURL.replace(/\/$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${options.apiKey}`,
        ...options.headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new ModelConnectionError(err);
  }
  if (!response.ok) {
    const text = await response.text().catch((err) => (err as Error).message ?? String(err));
    throw statusError(response.status, text, response.headers);
  }
  hooks.onResponse?.();
  if (response.body === null) return;
  const events: EventSourceMessage[] = [];
  let overflow: ParseError | undefined;
  const parser = createParser({
    onEvent: (event) => events.push(event),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") overflow = error;
    },
    maxBufferSize: MAX_EVENT_CHARS,
  });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  let finished = false;
  try {
    while (!finished) {
      const next = await reader.read();
      if (next.done) {
        parser.feed(decoder.decode());
        finished = true;
      } else {
        parser.feed(decoder.decode(next.value, { stream: true }));
      }
      if (overflow) {
        throw new SyntaxError(
          `Error reading response: a server-sent event over ${MAX_EVENT_CHARS} characters.`,
        );
      }
      for (const event of events.splice(0)) {
        if (event.data === "[DONE]") return;
        yield chunkOf(event, response.headers);
      }
    }
  } finally {
    if (!finished) reader.cancel().catch(() => {});
  }
}

/** One event's JSON payload, or the error it carries. */
function chunkOf(event: EventSourceMessage, headers: Headers): unknown {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    throw new SyntaxError("Error reading response: malformed server-sent event JSON.");
  }
  const error = (data as { error?: unknown } | null)?.error;
  if (event.event === "error") {
    throw new ModelApiError(undefined, error ?? data, undefined, headers);
  }
  if (error) throw new ModelApiError(undefined, error, undefined, headers);
  return data;
}

/** The error for a non-2xx answer: the JSON body's `error` (or the whole body), else its text. */
function statusError(status: number, text: string, headers: Headers): ModelApiError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return new ModelApiError(status, undefined, text, headers);
  }
  if (typeof json !== "object" || json === null) {
    return new ModelApiError(status, json, text, headers);
  }
  const inner = (json as { error?: unknown }).error;
  return new ModelApiError(status, inner ?? json, undefined, headers);
}

function apiErrorMessage(status: number | undefined, error: unknown, body: string | undefined) {
  const said = (error as { message?: unknown } | undefined)?.message;
  const text = typeof said === "string"
    ? said
    : said !== undefined && said !== null
    ? JSON.stringify(said)
    : error !== undefined && error !== null
    ? JSON.stringify(error)
    : body;
  if (status !== undefined) return text ? `${status} ${text}` : `${status} status code (no body)`;
  return text || "(no status code or body)";
}
