/**
 * Run events: a typed union in the `odek.event/v1` envelope with the type names of odek-go §9.
 * They feed the terminal renderer and `odek run --json`. The schema is additive: consumers must
 * ignore unknown types and fields.
 *
 * @module
 */

/** `data` of each event type. Durations in ms, sizes in bytes, tokens as the provider counts them. */
export interface RunEventData {
  run_started: {
    model: string;
    base_url: string;
    sandbox: string;
    max_iterations: number;
    workspace: string;
    resumed: boolean;
  };
  /** A piece of the assistant's streamed text. */
  text_delta: { text: string };
  /** A piece of streamed reasoning text (providers that send `reasoning_content`). */
  reasoning_delta: { text: string };
  /**
   * A model request failed in a way worth another try; the next attempt starts after `wait_ms`.
   * Text and reasoning deltas streamed since the last `assistant_message` belong to the failed
   * attempt: the retried turn streams again from its start, and only the finished turn is saved.
   */
  model_retry: {
    /** 1-based number of the attempt about to start (2 for the first retry). */
    attempt: number;
    max_attempts: number;
    wait_ms: number;
    /** `http_429`, `reset`, `connect_timeout`, `stream_idle`, `malformed`, `empty_choices`, `cut`, … */
    reason: string;
    /** The HTTP status of the failed attempt, when it had one. */
    status?: number;
  };
  /** The model finished one turn. */
  assistant_message: { content: string | null; tool_call_count: number; finish_reason: string };
  tool_call_started: {
    call_id: string;
    name: string;
    /** The arguments, redacted. */
    args: unknown;
    args_sha256: string;
    args_bytes: number;
  };
  tool_call_completed: {
    call_id: string;
    name: string;
    duration_ms: number;
    result_bytes: number;
    /** The start of the result (redacted): at most 12 lines and 1000 characters. */
    preview: string;
  };
  tool_call_failed: {
    call_id: string;
    name: string;
    duration_ms: number;
    error_class: string;
    /** The error message (redacted), whole. */
    message: string;
  };
  /** Some calls of a batch asked: the approver is being consulted. */
  approval_requested: { call_ids: string[]; classes: string[] };
  /** The approver's answer for one call. */
  approval_answered: { call_id: string; approved: boolean; scope: string; reason?: string };
  /** Tool calls left without a result by a crash got a synthetic "interrupted" result on resume. */
  session_repaired: { tool_call_ids: string[] };
  session_saved: { message_count: number };
  iteration_completed: { input_tokens: number; output_tokens: number; tools_called: number };
  run_completed: {
    duration_ms: number;
    input_tokens: number;
    output_tokens: number;
    iterations: number;
    tool_calls: number;
  };
  run_failed: {
    duration_ms: number;
    error_class: string;
    message: string;
    input_tokens: number;
    output_tokens: number;
    iterations: number;
    tool_calls: number;
  };
}

/** Every event type name. */
export type RunEventType = keyof RunEventData;

/** One event in the `odek.event/v1` envelope. */
export type RunEvent = {
  [T in RunEventType]: {
    schema: "odek.event/v1";
    type: T;
    /** 128-bit hex id of the run. */
    run_id: string;
    session_id?: string;
    /** 1-based loop iteration, when the event belongs to one. */
    iteration?: number;
    /** Tool name, for tool events. */
    tool?: string;
    /** RFC 3339 UTC. */
    timestamp: string;
    data: RunEventData[T];
  };
}[RunEventType];

/** Receives events; must not throw (a throwing sink is isolated by the emitter). */
export type RunEventSink = (event: RunEvent) => void;
