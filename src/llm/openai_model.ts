/**
 * The real {@linkcode Model}: streaming chat completions through the `openai` SDK, against any
 * OpenAI-compatible base URL.
 *
 * @module
 */
import type { OpenAI } from "openai";
import { OdekError } from "../_util/odek_error.ts";
import { ChatStreamAssembler } from "./chat_stream_assembler.ts";
import { displayURL, type SdkErrorClasses, toModelError } from "./_model_error.ts";
import type { Model, ModelDelta, ModelRequest, ModelResponse } from "./model.ts";

/** Options for {@linkcode OpenAIModel}. */
export interface OpenAIModelOptions {
  /** The API root, e.g. `https://api.deepseek.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; never appears in an error message. Must not be empty. */
  apiKey: string;
  /** The model id sent with every request. */
  model: string;
  /** The fetch to use (a recording or replaying one, for cassettes). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Milliseconds to wait for the response headers of one request. @default 600_000 */
  requestTimeoutMs?: number;
  /** Extra headers sent with every request. @default none */
  headers?: Record<string, string>;
}

interface Client {
  openai: OpenAI;
  errors: SdkErrorClasses;
}

/**
 * A chat-completions model reached over HTTP with the `openai` SDK, loaded lazily on the first
 * {@linkcode OpenAIModel.complete} so that importing this module costs nothing.
 *
 * Every request streams (`stream: true`, `stream_options.include_usage`), sends `tools` only when
 * there are some, and is tried once (SDK retries are off). Deltas are assembled by
 * {@linkcode ChatStreamAssembler}. Tool-call arguments are not validated here.
 *
 * @throws {OdekError} from the constructor: `MISSING_API_KEY` when `apiKey` is empty
 *
 * @example Complete one turn against the fake server
 * ```ts
 * import { OpenAIModel, type OpenAIModelOptions } from "./openai_model.ts";
 * import { startFakeOpenAIServer } from "../testing/fake_openai_server.ts";
 * await using server = await startFakeOpenAIServer({ turns: [{ text: "hi there" }] });
 * const options: OpenAIModelOptions = { baseURL: server.url, apiKey: "sk-test", model: "m" };
 * const model = new OpenAIModel(options);
 * const res = await model.complete({
 *   messages: [{ role: "user", content: "hello" }],
 *   tools: [],
 *   iteration: 1,
 * });
 * if (res.message.content !== "hi there" || res.finishReason !== "stop") throw new Error("bad");
 * ```
 */
export class OpenAIModel implements Model {
  readonly #options: OpenAIModelOptions;
  readonly #timeoutMs: number;
  #client: Promise<Client> | undefined;

  /** @param options base URL, API key, model id, and optional fetch, timeout and headers */
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
  }

  /**
   * Streams the next assistant turn.
   *
   * @param request the transcript, tools, iteration number and abort signal
   * @param onDelta sees text, reasoning and tool-call starts as they arrive
   * @returns the assembled assistant message, finish reason and token usage (0 when not reported)
   * @throws {OdekError} `MODEL_UNREACHABLE` (connection refused, DNS, header timeout),
   *   `MODEL_ERROR` (HTTP error status, or an error object in the stream), `MODEL_PROTOCOL`
   *   (a stream cut before its `finish_reason`, a chunk that is not JSON), or an `OdekError` from
   *   the fetch (e.g. `CASSETTE_MISMATCH`) unchanged
   * @throws {DOMException} the signal's abort reason (an `AbortError`) when `request.signal` aborts
   */
  async complete(
    request: ModelRequest,
    onDelta?: (delta: ModelDelta) => void,
  ): Promise<ModelResponse> {
    request.signal?.throwIfAborted();
    const { openai, errors } = await this.#loadClient();
    const source = `the model at ${displayURL(this.#options.baseURL)}`;
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
    const assembler = new ChatStreamAssembler({
      iteration: request.iteration,
      onDelta: guarded,
      source,
    });
    const context = {
      baseURL: this.#options.baseURL,
      apiKey: this.#options.apiKey,
      requestTimeoutMs: this.#timeoutMs,
      signal: request.signal,
      sdk: errors,
    };
    let stream;
    try {
      stream = await openai.chat.completions.create({
        model: this.#options.model,
        // The transcript is the wire format (reasoning_content is echoed back, odek-go §3 step 6).
        messages: request.messages as OpenAI.Chat.ChatCompletionMessageParam[],
        ...(request.tools.length > 0 ? { tools: request.tools } : {}),
        ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
        stream: true,
        stream_options: { include_usage: true },
      }, { signal: request.signal });
    } catch (err) {
      throw toModelError(err, { ...context, midStream: false });
    }
    try {
      for await (const chunk of stream) assembler.push(chunk);
    } catch (err) {
      if (callbackError) throw callbackError.error;
      if (err instanceof OdekError && err.code === "MODEL_PROTOCOL") throw err;
      throw toModelError(err, { ...context, midStream: true });
    }
    // The SDK ends the iteration quietly when the request is aborted mid-stream.
    request.signal?.throwIfAborted();
    return assembler.finish();
  }

  #loadClient(): Promise<Client> {
    this.#client ??= (async () => {
      const sdk = await import("openai");
      const openai = new sdk.OpenAI({
        baseURL: this.#options.baseURL,
        apiKey: this.#options.apiKey,
        // Explicit nulls keep OPENAI_* environment variables from leaking into requests.
        organization: null,
        project: null,
        adminAPIKey: null,
        webhookSecret: null,
        maxRetries: 0,
        timeout: this.#timeoutMs,
        logLevel: "off",
        ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
        ...(this.#options.headers ? { defaultHeaders: this.#options.headers } : {}),
      });
      return { openai, errors: sdk };
    })();
    this.#client.catch(() => this.#client = undefined);
    return this.#client;
  }
}
