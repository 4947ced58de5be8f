/**
 * The run loop: a short state machine over a tagged union of next steps (call the model → run
 * tools → persist → repeat), in the style of openai-agents-js. Each step lives in its own file.
 *
 * @module
 */
import { type CapLimits, DEFAULT_CAP_LIMITS } from "../_util/cap_output.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import { redactStrings } from "../_util/redact_strings.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { BuiltinTool } from "../broker/builtin_tools.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { Model, ToolSpec } from "../llm/model.ts";
import { callModelStep } from "./call_model_step.ts";
import type { ToolGate } from "./gate_tool_calls.ts";
import type { RunContext, TranscriptJournal } from "./run_context.ts";
import { makeRunEvent } from "./make_run_event.ts";
import type { RunEventSink } from "./run_event.ts";
import { newRunStats, type RunStats } from "./run_stats.ts";
import { runToolsStep } from "./run_tools_step.ts";

/** Options for {@linkcode runAgent}. */
export interface RunAgentOptions {
  model: Model;
  broker: ToolBroker;
  /** Where every message is appended durably (an open session). */
  journal: TranscriptJournal;
  /** The transcript so far: system prompt, task, and for a resumed session everything since. */
  messages: readonly ChatMessage[];
  tools: readonly BuiltinTool[];
  toolSpecs: ToolSpec[];
  /** Model turns before the run stops with `iteration_budget_exhausted`. @default 90 */
  maxIterations?: number;
  /** Tool calls of one reply that run at once. @default 4 */
  maxToolParallel?: number;
  /**
   * The cap on each tool result the model reads (and the journal keeps).
   * @default DEFAULT_CAP_LIMITS: 16384 bytes, of which 12288 head and 4096 tail
   */
  toolOutput?: CapLimits;
  /** Classifies each call and asks the approver about those that ask. @default none: every call runs */
  gate?: ToolGate;
  /** 128-bit hex id of this run. */
  runId: string;
  sessionId?: string;
  /** Receives every event. @default ignore */
  onEvent?: RunEventSink;
  /** Stops the run: the model request is aborted and running tools are killed. */
  signal?: AbortSignal;
  /** Monotonic ms clock. @default performance.now */
  now?: () => number;
  /**
   * Applied to everything the loop writes or emits. With `forms` (a `Redactor` from
   * `redactKnownValues`), streamed text is redacted across delta boundaries too. @default identity
   */
  redact?: ((text: string) => string) & { forms?: readonly string[]; patterns?: boolean };
}

/** How a run ended. The transcript is persisted in every case. */
export type RunOutcome =
  | { type: "completed"; text: string | null; stats: RunStats }
  | { type: "iteration_budget_exhausted"; stats: RunStats }
  | { type: "interrupted"; stats: RunStats }
  | { type: "failed"; error: Error; stats: RunStats };

type NextStep =
  | { type: "call_model" }
  | { type: "run_tools"; message: Extract<ChatMessage, { role: "assistant" }> }
  | { type: "final_output"; text: string | null }
  | { type: "budget_exhausted" };

/**
 * Run the loop until the model answers without tool calls, the iteration budget is spent, the
 * signal aborts, or an operator-facing fault occurs. Never throws: every ending is an outcome.
 *
 * @example With the scripted model and an in-memory journal
 * ```ts ignore
 * const outcome = await runAgent({ model, broker, journal, messages, tools, toolSpecs, runId });
 * ```
 */
export async function runAgent(options: RunAgentOptions): Promise<RunOutcome> {
  const now = options.now ?? (() => performance.now());
  const signal = options.signal ?? new AbortController().signal;
  const maxIterations = options.maxIterations ?? 90;
  const stats = newRunStats(now());
  const sink = options.onEvent ?? (() => {});
  const redact = options.redact ?? ((text: string) => text);
  const context: RunContext = {
    model: options.model,
    broker: options.broker,
    journal: options.journal,
    tools: options.tools,
    toolSpecs: options.toolSpecs,
    messages: [...options.messages],
    stats,
    maxToolParallel: options.maxToolParallel ?? 4,
    toolOutput: options.toolOutput ?? DEFAULT_CAP_LIMITS,
    ...(options.gate ? { gate: options.gate } : {}),
    signal,
    now,
    redact,
    emit(type, data, extra) {
      // Every sink (terminal, --json, an events file) gets redacted data, whatever the step did.
      const event = makeRunEvent(type, redactStrings(data, redact), {
        runId: options.runId,
        sessionId: options.sessionId,
        iteration: stats.iterations,
        tool: extra?.tool,
      });
      try {
        sink(event);
      } catch {
        // A failing consumer must not break the run.
      }
    },
  };
  let step: NextStep = { type: "call_model" };
  try {
    while (true) {
      if (signal.aborted) return { type: "interrupted", stats };
      switch (step.type) {
        case "call_model":
          step = stats.iterations >= maxIterations
            ? { type: "budget_exhausted" }
            : await callModelStep(context);
          break;
        case "run_tools":
          await runToolsStep(context, step.message);
          step = { type: "call_model" };
          break;
        case "final_output":
          return { type: "completed", text: step.text, stats };
        case "budget_exhausted":
          return { type: "iteration_budget_exhausted", stats };
        default: {
          const unreachable: never = step;
          throw new TypeError(`Unknown step: ${JSON.stringify(unreachable)}`);
        }
      }
    }
  } catch (error) {
    if (signal.aborted || (error instanceof DOMException && error.name === "AbortError")) {
      return { type: "interrupted", stats };
    }
    return {
      type: "failed",
      error: error instanceof Error ? error : new OdekError("MODEL_ERROR", String(error)),
      stats,
    };
  }
}
