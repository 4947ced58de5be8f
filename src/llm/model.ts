/**
 * The model seam: what the loop needs from a chat-completions model. The real implementation is
 * {@linkcode OpenAIModel} (streaming, via the `openai` SDK); tests use the fake server in
 * `src/testing/` or a scripted model.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage } from "../_util/chat_message.ts";

/** A function tool as the model sees it (OpenAI `tools[]` entry). */
export interface ToolSpec {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One request for the next assistant turn. */
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
}

/** A failed attempt that is about to be retried. */
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

/** Streamed pieces of the reply, delivered as they arrive. */
export type ModelDelta =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | { type: "tool_call"; index: number; name?: string };

/** Token usage the provider reported (0 when it reported none). */
export interface ModelUsage {
  /** Prompt tokens. */
  inputTokens: number;
  /** Completion tokens. */
  outputTokens: number;
}

/** A finished assistant turn. */
export interface ModelResponse {
  /**
   * The assistant message. Tool calls always have an id (missing ones become
   * `it<iteration>-call<index>`) and `arguments` is never empty (`""` becomes `"{}"`).
   */
  message: AssistantMessage;
  /** The provider's `finish_reason` (`stop`, `tool_calls`, `length`, …). */
  finishReason: string;
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
 */
export interface Model {
  /** Ask for the next turn; `onDelta` sees the streamed text and tool-call starts. */
  complete(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResponse>;
}
