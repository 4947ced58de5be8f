/**
 * Run events: a typed union in the `odek.event/v1` envelope with the type names of odek-go §9.
 * They feed the terminal renderer and `odek run --json`. The schema is additive: consumers must
 * ignore unknown types and fields.
 *
 * @module
 */

/**
 * `data` of each event type. Durations in ms, sizes in bytes, tokens as the provider counts them.
 *
 * @example Read the data of a completed tool call
 * ```ts
 * import type { RunEventData } from "./run_event.ts";
 * const data: RunEventData["tool_call_completed"] = {
 *   call_id: "c1", name: "read_file", duration_ms: 12, result_bytes: 120, preview: "1|hello",
 * };
 * if (data.duration_ms !== 12) throw new Error("duration");
 * ```
 */
export interface RunEventData {
  /** The run started: what it runs with. */
  run_started: {
    model: string;
    base_url: string;
    sandbox: string;
    max_iterations: number;
    workspace: string;
    resumed: boolean;
    /**
     * A resumed session: what it spent before this run (counted against its budgets) and, for
     * each spend budget that is on, how much is left (cost in US dollars).
     */
    session_spend?: {
      input_tokens: number;
      output_tokens: number;
      tool_calls: number;
      cost_usd?: number;
      left: {
        input_tokens?: number;
        output_tokens?: number;
        tool_calls?: number;
        cost_usd?: number;
      };
    };
    /** Calls of the last batch that were still without a result, answered or run first. */
    pending_tool_calls?: { call_id: string; name: string; state: string }[];
    /** The host's trust level. */
    trust?: string;
    /** Instruction files the transcript holds (`AGENTS.md`), each with its lines. */
    instructions?: { source: string; lines: number }[];
    /** Whether each step that can write the workspace is checkpointed (`odek undo` works). */
    checkpoints?: boolean;
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
  /** A tool call starts (it was validated and, when it asked, approved). */
  tool_call_started: {
    call_id: string;
    name: string;
    /** The arguments, redacted. */
    args: unknown;
    args_sha256: string;
    args_bytes: number;
  };
  /** A tool call succeeded. */
  tool_call_completed: {
    call_id: string;
    name: string;
    duration_ms: number;
    result_bytes: number;
    /**
     * The start of the result (redacted): at most 12 lines and 1000 characters, then
     * `… N more lines` when it was cut.
     */
    preview: string;
    /** The end of the result: `… N more lines` when cut, then at most its last 12 lines. */
    tail?: string;
    /** Lines of the whole result. */
    lines?: number;
  };
  /** A tool call failed, was denied, timed out or was interrupted (the model reads why). */
  tool_call_failed: {
    call_id: string;
    name: string;
    duration_ms: number;
    error_class: string;
    /** The error message (redacted), whole. */
    message: string;
  };
  /**
   * A tool's output held escape sequences, bidi controls or invisible characters; they were
   * removed before the model, the journal or the terminal saw it. `kinds` are `NeutralizedKind`s.
   */
  content_flagged: { call_id: string; kinds: string[] };
  /** Some calls of a batch asked: the approver is being consulted. */
  approval_requested: { call_ids: string[]; classes: string[] };
  /** The approver's answer for one call. */
  approval_answered: { call_id: string; approved: boolean; scope: string; reason?: string };
  /**
   * A destination a call with network asked the egress proxy for: allowed (and connected to
   * `address`) or refused with the reason (design §2).
   */
  egress: { host: string; port: number; address?: string; allowed: boolean; reason?: string };
  /**
   * A call was refused because a path it was to use changed after odek checked it (a mount that
   * is not the object odek pinned: a concurrent rename; docs/security.md, "Races").
   */
  sandbox_refused: { call_id: string; name: string; reason: string };
  /**
   * odek undid a call's (or background job's) changes to files the host runs later (hooks,
   * `.git/config`, `.envrc`, editor settings; issue 13): each path and what was done.
   */
  protected_reverted: {
    call_id: string;
    name: string;
    paths: { path: string; action: "removed" | "restored" | "kept"; why?: string }[];
  };
  /**
   * A resumed session was repaired so its next request is valid (the journal keeps the
   * originals): `tool_call_ids` — calls left without a result by a crash got a synthetic result
   * (interrupted, or not started); `reminted` — calls whose id an earlier call already had are
   * sent with a fresh one; `arguments_reset` — calls whose arguments were not a JSON object are
   * sent with `{}`.
   */
  session_repaired: {
    tool_call_ids: string[];
    reminted?: { from: string; to: string }[];
    arguments_reset?: string[];
  };
  /**
   * Loading the session found a damaged journal tail (a crash mid-write): its `bytes` were moved
   * to `path` and the journal goes on from its last whole record.
   */
  session_torn_tail: { path: string; bytes: number };
  /** The session journal holds `message_count` messages, synced to disk. */
  session_saved: { message_count: number };
  /** The model created a plan (counts only: step text stays out of events, odek-go §9). */
  plan_created: { steps: number; done: number; version: number };
  /** The model changed step statuses or notes. */
  plan_updated: { steps: number; done: number; version: number };
  /**
   * What was sent was trimmed to fit the context window (the journal keeps everything):
   * `proactive` near the limit, `survival` after the provider refused a request as too long,
   * `manual` when the operator asked for a compaction (`startRun({ compact: true })`).
   * `dropped_groups`: turn groups left out by this trim; `truncated_results`: tool results newly
   * replaced by a marker; `estimated_tokens`: the calibrated estimate of the request as sent;
   * `window`: the context window in tokens.
   */
  context_trimmed: {
    mode: "proactive" | "survival" | "manual";
    dropped_groups: number;
    truncated_results: number;
    estimated_tokens: number;
    window: number;
  };
  /** Dropped turn groups were summarised into the rolling digest (`digest_tokens` estimated). */
  compaction_completed: { dropped_groups: number; digest_tokens: number; duration_ms: number };
  /** The compaction side call failed; the groups were dropped without a new digest. */
  compaction_failed: { reason: string };
  /** One model turn and its tool calls are done; tokens as the provider counted them. */
  iteration_completed: { input_tokens: number; output_tokens: number; tools_called: number };
  /**
   * A budget is spent; the run stops (exit code 4). Units: `runtime` in seconds, `cost_usd` in US
   * dollars, the others in counts. Emitted before `run_failed`.
   */
  budget_exceeded: {
    limit_name:
      | "runtime"
      | "tool_calls"
      | "input_tokens"
      | "output_tokens"
      | "cost_usd"
      | "iterations";
    observed: number;
    limit: number;
    /**
     * `input_tokens` only, when a request was not sent: its estimated prompt, which alone was
     * over what was left (`observed` is then the total it would have reached).
     */
    prompt_tokens?: number;
  };
  /**
   * A cycle of `cycle_length` tool calls (1 to 3; `name` lists their tools) came `repeats` times
   * in a row with the same arguments and results: `action` `hint` — odek told the model to change
   * course; `stop` — it went on after the hint and the run ends `stalled` (exit code 5).
   */
  stall_detected: {
    name: string;
    repeats: number;
    cycle_length: number;
    action: "hint" | "stop";
  };
  /** A tool call is still running (a heartbeat, every 60 s by default). */
  tool_running: { call_id: string; name: string; elapsed_ms: number };
  /** The model's summary of an unfinished run, asked for when the iteration budget is spent. */
  partial_summary: { text: string };
  /** The run ended with a final answer. */
  run_completed: {
    duration_ms: number;
    input_tokens: number;
    output_tokens: number;
    iterations: number;
    tool_calls: number;
  };
  /** The run ended without one: a budget, an interruption or an error (`error_class`). */
  run_failed: {
    duration_ms: number;
    error_class: string;
    message: string;
    input_tokens: number;
    output_tokens: number;
    iterations: number;
    tool_calls: number;
  };
  /**
   * A step that could write the workspace changed files (the checkpoints before and after it
   * differ): each file with its line counts and, for text files, the start of its unified diff.
   * `checkpoint` is the checkpoint after the step (`odek rewind` restores to checkpoints).
   */
  files_changed: { checkpoint: string; call_ids: string[]; files: FileChangeData[] };
  /** Before the run's last event: every file the run changed, from its first checkpoint to its last. */
  run_files_changed: { from: string; to: string; files: Omit<FileChangeData, "diff">[] };
  /** Checkpoints cannot be taken for this session (e.g. the workspace is over the size caps): changes from now on cannot be undone. */
  checkpoints_off: { reason: string };
  /**
   * A `delegate_tasks` call started a sub-agent (docs/subagents.md): its task, its session, and
   * the trust level and workspace access it runs with (never above the parent's).
   */
  subagent_started: {
    call_id: string;
    task_index: number;
    session_id: string;
    trust_level: string;
    workspace_access: "read" | "write";
  };
  /** A task asked for a trust level above its parent's: it runs with the parent's. */
  subagent_trust_lowered: {
    call_id: string;
    task_index: number;
    requested: string;
    granted: string;
  };
  /** A sub-agent with write access waits for another one writing the same workspace. */
  subagent_waiting: { call_id: string; task_index: number; reason: string };
  /** A sub-agent ended; its tokens are counted in the parent's usage and budgets. */
  subagent_completed: {
    call_id: string;
    task_index: number;
    session_id: string;
    status: "completed" | "budget_exceeded" | "stalled" | "interrupted" | "failed";
    input_tokens: number;
    output_tokens: number;
  };
  /**
   * Not an event of the run itself: a subscriber's marker standing where the events with `seq`
   * from `from` to `to` (inclusive) were dropped because it did not keep up (its bounded buffer
   * was full; the run never waits), or were no longer in the run's memory when it asked to
   * replay them. Its own `seq` is `to`.
   */
  events_dropped: { from: number; to: number };
}

/**
 * One changed file of a `files_changed` or `run_files_changed` event.
 *
 * @example Say what changed
 * ```ts
 * import type { FileChangeData } from "./run_event.ts";
 * const file: FileChangeData = { path: "src/app.ts", change: "modified", added: 3, removed: 1, binary: false };
 * const line = `${file.path} +${file.added} -${file.removed}`;
 * if (line !== "src/app.ts +3 -1") throw new Error(line);
 * ```
 */
export interface FileChangeData {
  /** The workspace-relative path. */
  path: string;
  /** What happened to it between the two checkpoints. */
  change: "added" | "modified" | "deleted";
  /** Lines added (0 for a binary file). */
  added: number;
  /** Lines removed (0 for a binary file). */
  removed: number;
  /** Whether the file is not text (no line counts, no diff). */
  binary: boolean;
  /** A text file's unified diff hunks (`@@ … @@` lines and `+`/`-`/` ` lines), cut with `… N more lines`. */
  diff?: string;
}

/**
 * Every event type name.
 *
 * @example Count events by type
 * ```ts
 * import type { RunEventType } from "./run_event.ts";
 * const counts = new Map<RunEventType, number>();
 * for (const type of ["tool_call_started", "tool_call_completed", "tool_call_started"] as RunEventType[]) {
 *   counts.set(type, (counts.get(type) ?? 0) + 1);
 * }
 * if (counts.get("tool_call_started") !== 2) throw new Error("counts");
 * ```
 */
export type RunEventType = keyof RunEventData;

/**
 * One event in the `odek.event/v1` envelope.
 *
 * @example Switch on the type of an event
 * ```ts
 * import type { RunEvent } from "./run_event.ts";
 * function describe(event: RunEvent): string {
 *   switch (event.type) {
 *     case "tool_call_failed":
 *       return `${event.data.name} failed: ${event.data.message}`;
 *     case "run_completed":
 *       return `done in ${event.data.iterations} turns`;
 *     default:
 *       return event.type;
 *   }
 * }
 * const event: RunEvent = {
 *   schema: "odek.event/v1", type: "run_completed", run_id: "r1", timestamp: "2025-01-01T00:00:00.000Z",
 *   data: { duration_ms: 5, input_tokens: 10, output_tokens: 2, iterations: 1, tool_calls: 0 },
 * };
 * if (describe(event) !== "done in 1 turns") throw new Error(describe(event));
 * ```
 */
export type RunEvent = {
  [T in RunEventType]: {
    schema: "odek.event/v1";
    type: T;
    /** 128-bit hex id of the run. */
    run_id: string;
    /**
     * Per-run monotonic number from 1, assigned by the runtime (design §8.2); events straight
     * from the loop have none yet.
     */
    seq?: number;
    /** `<run_id>:<seq>`, assigned with `seq`. */
    id?: string;
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
