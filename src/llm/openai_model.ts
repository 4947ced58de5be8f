/**
 * The real {@linkcode Model}: streaming chat completions over `fetch`, against any
 * OpenAI-compatible base URL, with odek's own retries, timeouts and stream assembly.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { DEFAULT_QUIRKS, type ProviderQuirks } from "../config/provider_quirks.ts";
import { ChatStreamAssembler } from "./chat_stream_assembler.ts";
import { guardResponse } from "./_guard_response.ts";
import { type AttemptOutcome, classifyAttempt } from "./_classify_attempt.ts";
import { displayURL } from "./_model_error.ts";
import { type ChatTransportOptions, streamChatCompletion } from "./_chat_transport.ts";
import { requestJson } from "./_request_json.ts";
import { withRetries } from "./_retry_loop.ts";
import { timedFetch } from "./_timed_fetch.ts";
import { type Clock, systemClock } from "./clock.ts";
import type { Model, ModelDelta, ModelRequest, ModelResponse } from "./model.ts";
import { toWireMessages } from "./to_wire_messages.ts";
import {
  DEFAULT_RETRY_POLICY,
  type RetryPolicyOptions,
  type TransientReason,
} from "./retry_policy.ts";

/**
 * Options for {@linkcode OpenAIModel}.
 *
 * @example A local endpoint with fewer retries
 * ```ts
 * import type { OpenAIModelOptions } from "./openai_model.ts";
 * const options: OpenAIModelOptions = {
 *   baseURL: "http://127.0.0.1:11434/v1",
 *   apiKey: "unused-by-a-local-server",
 *   model: "qwen2.5-coder",
 *   retry: { maxAttempts: 3 },
 *   requestTimeoutMs: 120_000,
 * };
 * if (options.retry?.maxAttempts !== 3) throw new Error("retry");
 * ```
 */
export interface OpenAIModelOptions {
  /** The API root, e.g. `https://api.deepseek.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; never appears in an error message. Must not be empty. */
  apiKey: string;
  /** The model id sent with every request. */
  model: string;
  /** The fetch to use (a recording or replaying one, for cassettes). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Cap on one request, from sending it to the end of its stream, in ms. @default 600_000 */
  requestTimeoutMs?: number;
  /** Wait for the response status and headers of one request, in ms. @default 30_000 */
  connectTimeoutMs?: number;
  /** Longest gap between two pieces of a response body, in ms. @default 300_000 */
  streamIdleTimeoutMs?: number;
  /** The retry policy; unset fields keep {@linkcode DEFAULT_RETRY_POLICY}. */
  retry?: Partial<RetryPolicyOptions>;
  /** Time, waits and jitter. @default systemClock */
  clock?: Clock;
  /** Extra headers sent with every request. @default none */
  headers?: Record<string, string>;
  /**
   * How the provider differs from OpenAI (a preset's quirks, docs/model_client.md); unset fields
   * keep {@linkcode DEFAULT_QUIRKS}.
   */
  quirks?: Partial<ProviderQuirks>;
}

/** A broken 200 found while assembling the stream. */
class TurnFailure extends Error {
  constructor(readonly reason: TransientReason, readonly error: OdekError) {
    super(error.message);
  }
}

/**
 * A chat-completions model reached over HTTP: `fetch`, server-sent events framed by
 * `eventsource-parser`, and odek's own retries, timeouts and assembly (no SDK).
 *
 * Every request streams (`stream: true`, and `stream_options.include_usage` unless the quirks
 * say the provider refuses it) and sends `tools` only when there are some; the transcript goes
 * through {@linkcode toWireMessages}. A 200 that is not an event stream (a web page, JSON, text)
 * fails at once with `MODEL_PROTOCOL`, naming what came back. Deltas are assembled by {@linkcode ChatStreamAssembler}; tool-call
 * arguments are not validated here. odek's policy
 * ({@linkcode decideRetry}) retries HTTP 408/429/500/502/503/504/529, resets, timeouts before the
 * answer or inside the stream, and 200s that are malformed, choice-less or cut before their
 * `finish_reason`; refused connections and DNS failures get two quick retries. Each request is
 * bounded by the connect, stream-idle and request timeouts.
 *
 * @throws {OdekError} from the constructor: `MISSING_API_KEY` when `apiKey` is empty
 *
 * @example Complete one turn against the fake server, after one scripted 503
 * ```ts
 * import { OpenAIModel, type OpenAIModelOptions } from "./openai_model.ts";
 * import { startFakeOpenAIServer } from "../testing/fake_openai_server.ts";
 * await using server = await startFakeOpenAIServer({
 *   turns: [{ fault: { type: "status", status: 503 } }, { text: "hi there" }],
 * });
 * const options: OpenAIModelOptions = {
 *   baseURL: server.url,
 *   apiKey: "sk-test",
 *   model: "m",
 *   retry: { baseMs: 10 },
 * };
 * const model = new OpenAIModel(options);
 * const retries: string[] = [];
 * const res = await model.complete({
 *   messages: [{ role: "user", content: "hello" }],
 *   tools: [],
 *   iteration: 1,
 *   onRetry: (retry) => retries.push(`attempt ${retry.attempt} after ${retry.reason}`),
 * });
 * if (res.message.content !== "hi there" || res.finishReason !== "stop") throw new Error("bad");
 * if (retries.join() !== "attempt 2 after http_503") throw new Error(retries.join());
 * ```
 */
export class OpenAIModel implements Model {
  readonly #options: OpenAIModelOptions;
  readonly #timeoutMs: number;
  readonly #connectMs: number;
  readonly #idleMs: number;
  readonly #policy: RetryPolicyOptions;
  readonly #clock: Clock;
  readonly #quirks: ProviderQuirks;
  readonly #transport: ChatTransportOptions;

  /**
   * A client for one model at one base URL. Nothing is sent until the first request.
   *
   * @param options base URL, API key, model id, and optional fetch, timeouts, retry policy, clock and headers
   */
  constructor(options: OpenAIModelOptions) {
    if (options.apiKey === "") {
      throw new OdekError(
        "MISSING_API_KEY",
        `No API key for the model at ${displayURL(options.baseURL)}: set ODEK_API_KEY ` +
          `(any non-empty value for a local server that ignores it).`,
      );
    }
    this.#options = { ...options };
    this.#timeoutMs = options.requestTimeoutMs ?? 600_000;
    this.#connectMs = options.connectTimeoutMs ?? 30_000;
    this.#idleMs = options.streamIdleTimeoutMs ?? 300_000;
    this.#policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#clock = options.clock ?? systemClock;
    this.#quirks = { ...DEFAULT_QUIRKS, ...options.quirks };
    const inner = options.fetch ?? ((input, init) => fetch(input, init));
    this.#transport = {
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      ...(options.headers ? { headers: options.headers } : {}),
      // A 200 that is not an event stream fails at once (issue 14, case 9).
      fetch: guardResponse(
        timedFetch(inner, {
          connectTimeoutMs: this.#connectMs,
          idleTimeoutMs: this.#idleMs,
          requestTimeoutMs: this.#timeoutMs,
        }),
        { baseURL: options.baseURL, apiKey: options.apiKey },
      ),
    };
  }

  /**
   * Streams the next assistant turn, retrying transient failures.
   *
   * @param request the transcript, tools, iteration number, abort signal and retry listener
   * @param onDelta sees text, reasoning and tool-call starts as they arrive; after a retry the
   *   turn streams again from its start (see {@linkcode ModelRequest.onRetry})
   * @returns the assembled assistant message, finish reason and token usage (0 when not reported)
   * @throws {OdekError} `MODEL_UNREACHABLE` (connection refused, DNS, connect timeout, the request
   *   cap), `MODEL_ERROR` (HTTP error status, an exhausted quota, a `Retry-After` beyond the cap,
   *   or an error object in the stream), `MODEL_PROTOCOL` (a stream cut before its
   *   `finish_reason`, stalled, or with a chunk that is not JSON) once retries are spent;
   *   `CONTEXT_LENGTH_EXCEEDED` at once; an `OdekError` from the fetch (e.g. `CASSETTE_MISMATCH`)
   *   unchanged and never retried
   * @throws {DOMException} the signal's abort reason (an `AbortError`) when `request.signal`
   *   aborts, during a request or a retry wait
   */
  async complete(
    request: ModelRequest,
    onDelta?: (delta: ModelDelta) => void,
  ): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    // An error thrown by the caller's onDelta passes through unchanged, never as a model fault.
    let callbackError: { error: unknown } | undefined;
    const guarded = onDelta && ((delta: ModelDelta) => {
      try {
        onDelta(delta);
      } catch (error) {
        callbackError = { error };
        throw error;
      }
    });
    const classify = (err: unknown): AttemptOutcome => {
      if (callbackError) return { type: "throw", error: callbackError.error };
      if (err instanceof TurnFailure) {
        return {
          type: "failure",
          failure: { type: "transient", reason: err.reason },
          error: err.error,
        };
      }
      return classifyAttempt(err, {
        baseURL: this.#options.baseURL,
        apiKey: this.#options.apiKey,
        requestTimeoutMs: this.#timeoutMs,
        connectTimeoutMs: this.#connectMs,
        idleTimeoutMs: this.#idleMs,
        signal: request.signal,
        midStream: false,
        nowMs: this.#clock.now(),
      });
    };
    return await withRetries(() => this.#attempt(request, guarded), classify, {
      policy: this.#policy,
      clock: this.#clock,
      signal: request.signal,
      onRetry: request.onRetry,
    });
  }

  /** One request: throws what the transport threw, or a {@linkcode TurnFailure} for a broken 200. */
  async #attempt(
    request: ModelRequest,
    onDelta: ((delta: ModelDelta) => void) | undefined,
  ): Promise<ModelResponse> {
    const assembler = new ChatStreamAssembler({
      iteration: request.iteration,
      onDelta,
      source: `the model at ${displayURL(this.#options.baseURL)}`,
    });
    const quirks = this.#quirks;
    const stream = streamChatCompletion(
      this.#transport,
      requestJson({
        model: this.#options.model,
        // The transcript is the wire format, made acceptable to strict providers (valid JSON
        // arguments; reasoning_content echoed back where the provider wants it, odek-go §3 step 6).
        messages: toWireMessages(request.messages, quirks),
        ...(request.maxTokens !== undefined ? { [quirks.maxTokensField]: request.maxTokens } : {}),
        stream: true,
        ...(quirks.streamUsage ? { stream_options: { include_usage: true } } : {}),
      }, request.tools), // the tool list's JSON is made once per list
      { signal: request.signal, onResponse: request.onResponse },
    );
    for await (const chunk of stream) {
      try {
        assembler.push(chunk);
      } catch (err) {
        if (err instanceof OdekError && err.code === "MODEL_PROTOCOL") {
          throw new TurnFailure("malformed", err);
        }
        throw err;
      }
    }
    request.signal?.throwIfAborted();
    try {
      return assembler.finish();
    } catch (err) {
      const empty = assembler.chunkCount > 0 && assembler.choiceCount === 0;
      throw new TurnFailure(empty ? "empty_choices" : "cut", err as OdekError);
    }
  }
}
