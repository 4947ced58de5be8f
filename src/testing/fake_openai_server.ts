/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions wire format from a
 * script, chunked the way providers chunk, with injectable faults. For e2e tests of odek against
 * something that behaves like a provider, never for production.
 *
 * @module
 */
import { createFakeHandler } from "./_fake_server_handler.ts";

/**
 * A fault the fake server (or {@linkcode ScriptedModel}) injects instead of a normal turn.
 *
 * - `status`: answer HTTP `status` with `body` (default: an OpenAI-style error JSON), an
 *   optional `Retry-After` header (seconds or an HTTP date) and any other `headers` (e.g.
 *   `x-ratelimit-reset-requests`, or a `content-type` for a malformed 200).
 * - `cut`: stream `afterChunks` chunks, then end with no `finish_reason` and no `[DONE]`.
 * - `malformed`: a `data:` line that is not JSON, mid-stream.
 * - `no_done`: the `finish_reason` (and usage) arrive, then the stream ends without `[DONE]`.
 * - `empty_choices`: a 200 whose chunks all have `choices: []` and no finish.
 * - `hang`: headers are sent, then nothing until the client aborts or the server closes.
 * - `stall`: headers and the first `afterChunks` chunks (default 1) are sent, then nothing.
 * - `reset`: headers and the first `afterChunks` chunks (default 0) are sent, then the connection
 *   is aborted (Deno.serve sends the headers first; for a reset before any response use
 *   {@linkcode startResetProxy}).
 *
 * @example A rate limit, then a stream cut short
 * ```ts
 * import type { Fault } from "./fake_openai_server.ts";
 * const faults: Fault[] = [
 *   { type: "status", status: 429, retryAfter: "1" },
 *   { type: "cut", afterChunks: 3 },
 * ];
 * if (faults[0].type !== "status") throw new Error("status first");
 * ```
 */
export type Fault =
  | {
    type: "status";
    status: number;
    retryAfter?: string;
    body?: string;
    headers?: Record<string, string>;
  }
  | { type: "cut"; afterChunks: number }
  | { type: "malformed" }
  | { type: "no_done" }
  | { type: "empty_choices" }
  | { type: "hang" }
  | { type: "stall"; afterChunks?: number }
  | { type: "reset"; afterChunks?: number };

/**
 * One scripted tool call.
 *
 * @example A call with its own id
 * ```ts
 * import type { ScriptedToolCall } from "./fake_openai_server.ts";
 * const call: ScriptedToolCall = { id: "call_1", name: "read_file", arguments: { path: "README.md" } };
 * if (call.name !== "read_file") throw new Error("name");
 * ```
 */
export interface ScriptedToolCall {
  /** The call id. `undefined`: `call_<turn>_<index>`; `null`: the id is omitted from the stream. */
  id?: string | null;
  /** The tool name. */
  name: string;
  /** Raw argument text, or an object that is JSON-encoded. `""` streams no argument pieces. */
  arguments: string | Record<string, unknown>;
}

/**
 * One assistant turn the fake answers with.
 *
 * @example A tool call, then the answer
 * ```ts
 * import type { ScriptedTurn } from "./fake_openai_server.ts";
 * const turns: ScriptedTurn[] = [
 *   { toolCalls: [{ name: "glob", arguments: { pattern: "*.md" } }] },
 *   { text: "There is one Markdown file.", delayMs: 5 },
 * ];
 * if (turns.length !== 2) throw new Error("two turns");
 * ```
 */
export interface ScriptedTurn {
  /** Assistant text, streamed in pieces of a few characters up to a word. */
  text?: string;
  /** DeepSeek-style `reasoning_content`, streamed before the text. */
  reasoning?: string;
  /** Tool calls; with several, their argument pieces are interleaved. */
  toolCalls?: ScriptedToolCall[];
  /** The turn's `finish_reason`. @default "tool_calls" when there are tool calls, else "stop" */
  finishReason?: string;
  /**
   * Reported usage. @default `prompt_tokens`: the request's count (see
   * {@linkcode RecordedRequest.promptTokens}); `completion_tokens`: ~4 characters per token
   */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Milliseconds to wait before the response starts. @default 0 */
  delayMs?: number;
  /** Milliseconds between streamed chunks. @default 0 */
  chunkDelayMs?: number;
  /** Answer with this fault instead of a normal turn. */
  fault?: Fault;
  /**
   * Raw choice-0 deltas, streamed one per chunk after the role chunk instead of the ones built
   * from `reasoning`, `text` and `toolCalls` (for provider quirks such as two calls on one
   * `index`), then the finish chunk. Streamed answers only.
   */
  deltas?: Record<string, unknown>[];
}

/**
 * A chat-completions request the fake server received.
 *
 * @example Check what the client sent
 * ```ts
 * import type { RecordedRequest } from "./fake_openai_server.ts";
 * function lastUserText(request: RecordedRequest): string {
 *   const messages: { role: string; content: string }[] = request.body.messages;
 *   return messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
 * }
 * const request: RecordedRequest = {
 *   body: { messages: [{ role: "user", content: "hi" }] }, authorization: "Bearer k", receivedAt: 0, promptTokens: 9,
 * };
 * if (lastUserText(request) !== "hi") throw new Error("text");
 * ```
 */
export interface RecordedRequest {
  /** The parsed JSON body (the raw text when it was not JSON). */
  // deno-lint-ignore no-explicit-any
  body: any;
  /** The `Authorization` header, or `null`. */
  authorization: string | null;
  /** When it arrived, in `performance.now()` milliseconds. */
  receivedAt: number;
  /**
   * The fake's own token count of the request: `ceil((B(messages) + B(tools)) / 4)`, `B` being
   * the UTF-8 bytes of `JSON.stringify` of the body's `messages` and `tools` (0 when absent).
   * Reported as `usage.prompt_tokens` unless the turn sets its own usage.
   */
  promptTokens: number;
  /**
   * Set when the request was refused before it used a scripted turn: as over `contextWindow`, or
   * by strict mode.
   */
  refused?: true;
  /** Why: `context_length_exceeded`, or the strict-mode message (HTTP 400). */
  refusal?: string;
}

/**
 * Options for {@linkcode startFakeOpenAIServer}.
 *
 * @example A strict provider with a small window
 * ```ts
 * import type { FakeOpenAIServerOptions } from "./fake_openai_server.ts";
 * const options: FakeOpenAIServerOptions = { turns: [{ text: "ok" }], strict: true, contextWindow: 8192 };
 * if (!options.strict) throw new Error("strict");
 * ```
 */
export interface FakeOpenAIServerOptions {
  /**
   * The script: turn N answers the Nth chat-completions request. A function gets the request and
   * its 0-based index. When a list runs out the server answers HTTP 500
   * `fake server: no scripted turn N` (N 1-based).
   */
  turns:
    | ScriptedTurn[]
    | ((request: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);
  /** Port on 127.0.0.1. @default 0 (any free port) */
  port?: number;
  /** Stop by itself after this many milliseconds without a request. @default 120_000 */
  idleTimeoutMs?: number;
  /**
   * The model's context window in tokens: a request whose count
   * ({@linkcode RecordedRequest.promptTokens}) is larger is refused with HTTP 400 and OpenAI's
   * `{"error":{"code":"context_length_exceeded",…}}` body, without using a scripted turn.
   * @default no limit
   */
  contextWindow?: number;
  /**
   * Behave like a strict provider: a request whose history has a tool call without its result,
   * a result without its call, a repeated tool-call id, or an `arguments` that is not a JSON
   * object is refused with HTTP 400 and an OpenAI-style `invalid_request_error`, without using a
   * scripted turn (see {@linkcode RecordedRequest.refusal}). On by default, as odek must send
   * only histories such providers accept; `false` for a test that sends another history on
   * purpose. @default true
   */
  strict?: boolean;
  /**
   * The models `GET /v1/models` lists: ids, or objects merged over
   * `{object: "model", created: 0, owned_by: "odek-fake"}` (e.g. with a `context_length`).
   * @default ["fake-model"]
   */
  models?: readonly (string | { id: string; [key: string]: unknown })[];
}

/**
 * A running fake server.
 *
 * @example Start one and point a client at it
 * ```ts
 * import { type FakeOpenAIServer, startFakeOpenAIServer } from "./fake_openai_server.ts";
 * await using server: FakeOpenAIServer = await startFakeOpenAIServer({ turns: [{ text: "ok" }] });
 * const response = await fetch(`${server.url}/models`);
 * const models = await response.json();
 * if (models.data[0].id !== "fake-model" || server.requests.length !== 0) throw new Error("models");
 * ```
 */
export interface FakeOpenAIServer {
  /** Base URL to give a client, `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Every chat-completions request received, in order. */
  requests: RecordedRequest[];
  /** Resolves once the server has stopped (closed, or idle for `idleTimeoutMs`). */
  finished: Promise<void>;
  /** Stops the server, ending open streams; idempotent. */
  close(): Promise<void>;
  /** Same as {@linkcode FakeOpenAIServer.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a fake OpenAI-compatible server on 127.0.0.1: `POST /v1/chat/completions` (SSE when the
 * body has `stream: true`, a plain JSON completion otherwise) and `GET /v1/models`.
 *
 * Streams look like a real provider's: a first chunk `delta: {role: "assistant", content: ""}`,
 * text in small pieces, each tool call's first chunk with `index`, `id`, `type`, `function.name`
 * and `arguments: ""`, then ~7-character argument fragments (interleaved across parallel calls), a
 * chunk with an empty delta and the `finish_reason`, a usage chunk with `choices: []` (when the
 * request asks with `stream_options.include_usage`), then `data: [DONE]`.
 *
 * @param options the script, port and idle timeout
 * @returns the running server; close it (or `await using`) when done
 * @throws {Deno.errors.AddrInUse} when `options.port` is taken
 *
 * @example Script a tool call and a faulty answer, then call it over HTTP
 * ```ts
 * import {
 *   type FakeOpenAIServer,
 *   type FakeOpenAIServerOptions,
 *   type Fault,
 *   type RecordedRequest,
 *   type ScriptedToolCall,
 *   type ScriptedTurn,
 *   startFakeOpenAIServer,
 * } from "./fake_openai_server.ts";
 * const call: ScriptedToolCall = { name: "glob", arguments: { pattern: "*.ts" } };
 * const fault: Fault = { type: "status", status: 503 };
 * const turns: ScriptedTurn[] = [{ toolCalls: [call] }, { fault }];
 * const options: FakeOpenAIServerOptions = { turns, idleTimeoutMs: 10_000 };
 * await using server: FakeOpenAIServer = await startFakeOpenAIServer(options);
 * const res = await fetch(`${server.url}/chat/completions`, {
 *   method: "POST",
 *   body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
 * });
 * const completion = await res.json();
 * if (completion.choices[0].message.tool_calls[0].function.name !== "glob") throw new Error("bad");
 * const first: RecordedRequest = server.requests[0];
 * if (first.body.messages[0].content !== "hi") throw new Error("unexpected");
 * ```
 */
export async function startFakeOpenAIServer(
  options: FakeOpenAIServerOptions,
): Promise<FakeOpenAIServer> {
  const idleTimeoutMs = options.idleTimeoutMs ?? 120_000;
  const closing = new AbortController();
  const requests: RecordedRequest[] = [];
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      clearTimeout(idleTimer);
      closing.abort();
      await server.shutdown();
    })();
    return closed;
  };
  const armIdleTimer = () => {
    clearTimeout(idleTimer);
    if (closing.signal.aborted) return;
    idleTimer = setTimeout(() => void close(), idleTimeoutMs);
    // The listener keeps the process alive while the server runs; the timer never does on its own.
    idleTimer.unref();
  };
  const handler = createFakeHandler({
    turns: options.turns,
    requests,
    closing: closing.signal,
    onRequest: armIdleTimer,
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.strict ?? true ? { strict: true } : {}),
    ...(options.models ? { models: options.models } : {}),
  });
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: resolve,
    // Also keeps Deno from logging the errored body of a scripted `reset`.
    onError: (error) =>
      new Response(JSON.stringify({ error: { message: `fake server: ${String(error)}` } }), {
        status: 500,
        headers: { "content-type": "application/json" },
      }),
  }, handler);
  const addr = await listening;
  armIdleTimer();
  return {
    url: `http://127.0.0.1:${addr.port}/v1`,
    requests,
    finished: server.finished,
    close,
    [Symbol.asyncDispose]: close,
  };
}
