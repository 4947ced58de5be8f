/**
 * The run loop: a short state machine over a tagged union of next steps (call the model → run
 * tools → persist → repeat), in the style of openai-agents-js. Each step lives in its own file.
 *
 * @module
 */
import type { ChatMessage, ToolCall } from "../_util/chat_message.ts";
import { type CapLimits, DEFAULT_CAP_LIMITS } from "../_util/cap_output.ts";
import { redactStrings } from "../_util/redact_strings.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { ToolBroker, ToolResult } from "../broker/tool_broker.ts";
import type { Model } from "../llm/model.ts";
import { type BudgetBreach, BudgetChecker, type RunBudgets } from "./budget_checker.ts";
import { callModelStep } from "./call_model_step.ts";
import { checkRunLimits } from "./check_run_limits.ts";
import { ContextManager, type ContextOptions } from "./context_manager.ts";
import type { ToolGate } from "./gate_tool_calls.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import { restorePlan } from "./restore_plan.ts";
import type { RunContext, TranscriptJournal } from "./run_context.ts";
import { makeRunEvent } from "./make_run_event.ts";
import type { RunEventSink } from "./run_event.ts";
import { requestPartialSummary } from "./partial_summary.ts";
import { newRunStats, type RunStats } from "./run_stats.ts";
import { runToolsStep } from "./run_tools_step.ts";
import type { StepRunner } from "./step_runner.ts";
import { journalStepRunner } from "./journal_step_runner.ts";
import type { ToolSet } from "./tool_set.ts";
import { type Stall, StallDetector } from "./stall_detector.ts";

/** Options for {@linkcode runAgent}. */
export interface RunAgentOptions {
  model: Model;
  broker: ToolBroker;
  /** Where every message is appended durably (an open session). */
  journal: TranscriptJournal;
  /**
   * Runs and records each model call and tool call; a durable engine wraps the steps here.
   * @default `journalStepRunner(journal)`: each result appended to the journal
   */
  stepRunner?: StepRunner;
  /** The transcript so far: system prompt, task, and for a resumed session everything since. */
  messages: readonly ChatMessage[];
  /** The run's tools (built in and provided): the model is told their specs. */
  tools: ToolSet;
  /**
   * Model turns before the run stops with a `budget_exceeded` outcome (`iterations`), after one
   * tool-less call for a partial summary. @default 90
   */
  maxIterations?: number;
  /** Hard budgets (runtime, tool calls, tokens, cost). @default none */
  budgets?: RunBudgets;
  /** Milliseconds between `tool_running` heartbeats of a long tool call. @default 60_000 */
  toolHeartbeatMs?: number;
  /** Identical tool calls in a row that count as a stall (a hint is added). @default 3 */
  stallThreshold?: number;
  /** Bound on the partial-summary call, in milliseconds. @default 60_000 */
  partialSummaryTimeoutMs?: number;
  /** Tool calls of one reply that run at once. @default 4 */
  maxToolParallel?: number;
  /**
   * Context management: the window, compaction, protected messages, and a resumed session's
   * digest (docs/context.md). @default a 128 000-token window with compaction on
   */
  context?: ContextOptions;
  /**
   * The cap on each tool result the model reads (and the journal keeps).
   * @default DEFAULT_CAP_LIMITS: 16384 bytes, of which 12288 head and 4096 tail
   */
  toolOutput?: CapLimits;
  /** Classifies each call and asks the approver about those that ask. @default none: every call runs */
  gate?: ToolGate;
  /** Answers the `clarify` tool. @default none: every question is denied with a reason */
  clarifier?: Clarifier;
  /** 128-bit hex id of this run. */
  runId: string;
  sessionId?: string;
  /** Receives every event. @default ignore */
  onEvent?: RunEventSink;
  /** Stops the run: the model request is aborted and running tools are killed. */
  signal?: AbortSignal;
  /**
   * Monotonic ms clock, for the runtime budget checks between steps. (The runtime budget also
   * arms a real timer that aborts a model request or tool call still running when it is spent.)
   * @default performance.now
   */
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
  | {
    type: "budget_exceeded";
    breach: BudgetBreach;
    /** The model's summary when the iteration budget was spent (else `null`). */
    partialSummary: string | null;
    stats: RunStats;
  }
  | { type: "interrupted"; stats: RunStats }
  | { type: "failed"; error: Error; stats: RunStats };

type NextStep =
  | { type: "call_model" }
  | { type: "run_tools"; message: Extract<ChatMessage, { role: "assistant" }>; outputCut?: true }
  | { type: "final_output"; text: string | null }
  | { type: "budget_exceeded"; breach: BudgetBreach };

/**
 * Run the loop until the model answers without tool calls, the iteration budget is spent, the
 * signal aborts, or an operator-facing fault occurs. Every ending is an outcome; the promise
 * rejects only for options it could not honour, before anything runs or is journaled.
 *
 * @throws {TypeError} when `maxIterations`, `maxToolParallel` or a budget is not a number;
 *   {@linkcode RangeError} when one is out of range (see `checkRunLimits`)
 *
 * @example With the scripted model and an in-memory journal
 * ```ts ignore
 * const outcome = await runAgent({ model, broker, journal, messages, tools, runId });
 * ```
 */
export async function runAgent(options: RunAgentOptions): Promise<RunOutcome> {
  checkRunLimits(options);
  const now = options.now ?? (() => performance.now());
  const maxIterations = options.maxIterations ?? 90;
  const stats = newRunStats(now());
  const budgets = new BudgetChecker(options.budgets);
  const stalls = new StallDetector(options.stallThreshold ?? 3);
  // The runtime budget aborts whatever is running when it is spent, not only between steps.
  const deadline = new AbortController();
  let runtimeBreach: BudgetBreach | undefined;
  const remaining = budgets.remainingMs(stats, now());
  const timer = remaining === undefined ? undefined : setTimeout(() => {
    // The timer may fire a little before the clock reaches the limit (timer resolution, the
    // moment `remaining` was taken): the budget is spent all the same, and it is the limit.
    const limitMs = options.budgets?.maxRuntimeMs ?? remaining;
    runtimeBreach = budgets.runtime(stats, Math.max(now(), stats.startedAt + limitMs))!;
    deadline.abort();
  }, remaining);
  const signal = options.signal
    ? AbortSignal.any([options.signal, deadline.signal])
    : deadline.signal;
  const context = makeContext(options, stats, signal, now);
  const stopped = async (): Promise<RunOutcome> =>
    runtimeBreach && !options.signal?.aborted
      ? await budgetStop(runtimeBreach)
      : { type: "interrupted", stats };
  const budgetStop = async (breach: BudgetBreach): Promise<RunOutcome> => {
    context.emit("budget_exceeded", breach);
    const partialSummary = breach.limit_name === "iterations"
      ? await requestPartialSummary(context, {
        maxIterations,
        timeoutMs: options.partialSummaryTimeoutMs,
      })
      : null;
    if (options.signal?.aborted) return { type: "interrupted", stats };
    return { type: "budget_exceeded", breach, partialSummary, stats };
  };
  let step: NextStep = { type: "call_model" };
  try {
    while (true) {
      if (signal.aborted) return await stopped();
      switch (step.type) {
        case "call_model": {
          const breach = stats.iterations >= maxIterations
            ? {
              limit_name: "iterations" as const,
              observed: stats.iterations,
              limit: maxIterations,
            }
            : budgets.runtime(stats, now()) ?? budgets.usage(stats);
          step = breach ? { type: "budget_exceeded", breach } : await callModelStep(context);
          break;
        }
        case "run_tools": {
          const calls: ToolCall[] = step.message.tool_calls ?? [];
          // Tokens spent by the turn that asked for these calls count before any of them runs.
          const spent = budgets.runtime(stats, now()) ?? budgets.usage(stats);
          const batch: { runnable: number; breach?: BudgetBreach } = spent
            ? { runnable: 0, breach: spent }
            : budgets.toolBatch(stats, calls.length);
          await runToolsStep(context, step.message, {
            runnable: batch.runnable,
            refusal: batch.breach && notRun(batch.breach),
            outputCut: step.outputCut,
          });
          const stall = stalls.observe(calls.slice(0, batch.runnable));
          if (stall && !batch.breach) await addStallHint(context, stall);
          step = batch.breach
            ? { type: "budget_exceeded", breach: batch.breach }
            : { type: "call_model" };
          break;
        }
        case "final_output":
          return { type: "completed", text: step.text, stats };
        case "budget_exceeded":
          return await budgetStop(step.breach);
        default: {
          const unreachable: never = step;
          throw new TypeError(`Unknown step: ${JSON.stringify(unreachable)}`);
        }
      }
    }
  } catch (error) {
    if (signal.aborted || (error instanceof DOMException && error.name === "AbortError")) {
      return await stopped();
    }
    return {
      type: "failed",
      error: error instanceof Error ? error : new OdekError("MODEL_ERROR", String(error)),
      stats,
    };
  } finally {
    clearTimeout(timer);
  }
}

function makeContext(
  options: RunAgentOptions,
  stats: RunStats,
  signal: AbortSignal,
  now: () => number,
): RunContext {
  const sink = options.onEvent ?? (() => {});
  const redact = options.redact ?? ((text: string) => text);
  return {
    model: options.model,
    broker: options.broker,
    journal: options.journal,
    steps: options.stepRunner ?? journalStepRunner(options.journal),
    tools: options.tools,
    toolSpecs: options.tools.specs,
    messages: [...options.messages],
    stats,
    maxToolParallel: options.maxToolParallel ?? 4,
    toolOutput: options.toolOutput ?? DEFAULT_CAP_LIMITS,
    ...(options.gate ? { gate: options.gate } : {}),
    ...(options.clarifier ? { clarifier: options.clarifier } : {}),
    plan: restorePlan(options.messages),
    contextManager: new ContextManager(options.context),
    signal,
    now,
    heartbeatMs: options.toolHeartbeatMs ?? 60_000,
    redact,
    emit(type, data, extra) {
      // Every sink (terminal, --json, an events file) gets redacted data, whatever the step did.
      const event = makeRunEvent(type, redactStrings(data, redact), {
        runId: options.runId,
        sessionId: options.sessionId,
        iteration: stats.iterations,
        // The tool name is the model's text too (an unknown tool's name can carry anything).
        tool: extra?.tool === undefined ? undefined : redact(extra.tool),
      });
      try {
        sink(event);
      } catch {
        // A failing consumer must not break the run.
      }
    },
  };
}

/** The result of a call that a spent budget kept from running. */
function notRun(breach: BudgetBreach): ToolResult {
  return {
    ok: false,
    error: {
      kind: "budget_exceeded",
      message:
        `Not run: the run's ${breach.limit_name} budget is spent (${breach.observed} of ${breach.limit}). The run stops here.`,
    },
  };
}

/** The corrective hint for a stall: a user message marked as odek's, journaled like any other. */
async function addStallHint(context: RunContext, stall: Stall): Promise<void> {
  const hint: ChatMessage = {
    role: "user",
    content: `[odek] You have called ${stall.name} with the same arguments ${stall.repeats} ` +
      "times in a row. Repeating it will not give a different result. Change the arguments, " +
      "use another tool or approach, or, if you are done or stuck, answer with what you have.",
  };
  await context.journal.append(hint);
  context.messages.push(hint);
  context.emit("stall_detected", { name: stall.name, repeats: stall.repeats });
}
