/**
 * The model seam: what the loop needs from a chat-completions model. The real implementation is
 * {@linkcode OpenAIModel} (streaming over `fetch`); tests use the fake server in
 * `src/testing/` or a scripted model.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage } from "../_util/chat_message.ts";

/**
 * A function tool as the model sees it (OpenAI `tools[]` entry).
 *
 * @example A tool as the model is told of it
 * ```ts
 * import type { ToolSpec } from "./model.ts";
 * const spec: ToolSpec = {
 *   type: "function",
 *   function: { name: "now", description: "The time.", parameters: { type: "object", properties: {} } },
 * };
 * if (spec.function.name !== "now") throw new Error("name");
 * ```
 */
export interface ToolSpec {
  /** Always `function`. */
  type: "function";
  /** The tool's name, what the model is told of it, and the JSON Schema of its arguments. */
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/**
 * One request for the next assistant turn.
 *
 * @example Ask for a turn
 * ```ts
 * import type { ModelRequest } from "./model.ts";
 * const request: ModelRequest = {
 *   messages: [{ role: "user", content: "Say hello." }],
 *   tools: [],
 *   iteration: 1,
 *   maxTokens: 256,
 *   onRetry: (retry) => console.error(`retrying in ${retry.waitMs} ms: ${retry.reason}`),
 * };
 * if (request.iteration !== 1) throw new Error("iteration");
 * ```
 */
export interface ModelRequest {
  /** The whole transcript to send, in order. */
  messages: ChatMessage[];
  /** The tools the model may call. */
  tools: ToolSpec[];
  /** 1-based iteration of the loop; used for deterministic ids of calls that lack one. */
  iteration: number;
  /** Aborts the request and any wait inside it (retry waits included). */
  signal?: AbortSignal;
  /** Sent as `max_tokens`: a cap on the reply, in tokens. @default none (the provider's) */
  maxTokens?: number;
  /**
   * Told before each retry wait. Deltas already delivered belong to the failed attempt: the next
   * attempt streams the turn again from its start. Must not throw.
   */
  onRetry?: (retry: ModelRetry) => void;
  /**
   * Told when the provider has accepted an attempt (a 2xx status: its response headers arrived,
   * before the body is read): the request has left this process. Not told for an error status;
   * told again for a retry's attempt that is accepted. A model that cannot tell (a fake, a non-HTTP
   * model) need not call it. Must not throw.
   */
  onResponse?: () => void;
}

/**
 * A failed attempt that is about to be retried.
 *
 * @example Show a retry to the operator
 * ```ts
 * import type { ModelRetry } from "./model.ts";
 * const retry: ModelRetry = { attempt: 2, maxAttempts: 8, waitMs: 1000, reason: "http_429", status: 429, message: "rate limited" };
 * const line = `attempt ${retry.attempt}/${retry.maxAttempts} in ${retry.waitMs} ms (${retry.reason})`;
 * if (line !== "attempt 2/8 in 1000 ms (http_429)") throw new Error(line);
 * ```
 */
export interface ModelRetry {
  /** 1-based number of the attempt about to start (2 for the first retry). */
  attempt: number;
  /** Attempts allowed in all. */
  maxAttempts: number;
  /** Milliseconds until it starts. */
  waitMs: number;
  /** Why the last attempt failed: `http_429`, `reset`, `connect_timeout`, `stream_idle`, `cut`, … */
  reason: string;
  /** The HTTP status of the failed attempt, when it had one. */
  status?: number;
  /** The failed attempt's error message (what would have been thrown). */
  message: string;
}

/**
 * Streamed pieces of the reply, delivered as they arrive.
 *
 * @example Print the streamed text
 * ```ts
 * import type { ModelDelta } from "./model.ts";
 * let shown = "";
 * const onDelta = (delta: ModelDelta) => {
 *   if (delta.type === "text") shown += delta.text;
 * };
 * onDelta({ type: "text", text: "Hel" });
 * onDelta({ type: "tool_call", index: 0, name: "glob" });
 * onDelta({ type: "text", text: "lo" });
 * if (shown !== "Hello") throw new Error(shown);
 * ```
 */
export type ModelDelta =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; index: number; name?: string };

/**
 * Token usage the provider reported (0 when it reported none).
 *
 * @example Add up the tokens of a run
 * ```ts
 * import type { ModelUsage } from "./model.ts";
 * const turns: ModelUsage[] = [{ inputTokens: 100, outputTokens: 20 }, { inputTokens: 150, outputTokens: 5 }];
 * const total = turns.reduce((sum, u) => sum + u.inputTokens + u.outputTokens, 0);
 * if (total !== 275) throw new Error(String(total));
 * ```
 */
export interface ModelUsage {
  /** Prompt tokens. */
  inputTokens: number;
  /** Completion tokens. */
  outputTokens: number;
}

/**
 * A finished assistant turn.
 *
 * @example A turn that calls a tool
 * ```ts
 * import type { ModelResponse } from "./model.ts";
 * const response: ModelResponse = {
 *   message: {
 *     role: "assistant",
 *     content: null,
 *     tool_calls: [{ id: "c1", type: "function", function: { name: "glob", arguments: "{}" } }],
 *   },
 *   finishReason: "tool_calls",
 *   usage: { inputTokens: 100, outputTokens: 12 },
 * };
 * if (response.message.tool_calls?.length !== 1) throw new Error("one call");
 * ```
 */
export interface ModelResponse {
  /**
   * The assistant message. Tool calls always have an id (missing ones become
   * `it<iteration>-call<index>`) and `arguments` is never empty (`""` becomes `"{}"`).
   */
  message: AssistantMessage;
  /** The provider's `finish_reason` (`stop`, `tool_calls`, `length`, …). */
  finishReason: string;
  /** Tokens the turn used, as the provider counted them. */
  usage: ModelUsage;
}

/**
 * A chat-completions model.
 *
 * `complete` throws {@linkcode OdekError} with code `MODEL_UNREACHABLE` (connection refused, DNS,
 * timeouts), `MODEL_ERROR` (an HTTP error status), `MODEL_PROTOCOL` (a stream that ends without
 * a `finish_reason`, malformed chunks), `CONTEXT_LENGTH_EXCEEDED` (the provider refused an
 * over-long prompt; never retried), or `CASSETTE_MISMATCH` when replaying. Implementations may
 * retry transient failures first (see {@linkcode ModelRequest.onRetry}).
 *
 * @example A model of your own
 * ```ts
 * import type { Model, ModelRequest, ModelResponse } from "./model.ts";
 * const echo: Model = {
 *   complete(request: ModelRequest): Promise<ModelResponse> {
 *     const last = request.messages.at(-1);
 *     return Promise.resolve({
 *       message: { role: "assistant", content: `You said: ${last?.content}` },
 *       finishReason: "stop",
 *       usage: { inputTokens: 0, outputTokens: 0 },
 *     });
 *   },
 * };
 * const reply = await echo.complete({ messages: [{ role: "user", content: "hi" }], tools: [], iteration: 1 });
 * if (reply.message.content !== "You said: hi") throw new Error(String(reply.message.content));
 * ```
 */
export interface Model {
  /** Ask for the next turn; `onDelta` sees the streamed text and tool-call starts. */
  complete(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResponse>;
  /**
   * A hint that the first request comes soon (a session host is opening): a good moment to load
   * what it needs, such as an SDK. Returns at once; never throws (a load that fails is retried,
   * and reported, by the request).
   */
  prepare?(): void;
}
