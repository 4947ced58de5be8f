/**
 * The run loop: a short state machine over a tagged union of next steps (call the model → run
 * tools → persist → repeat), in the style of openai-agents-js. Each step lives in its own file.
 *
 * @module
 */
import { endPhase, startPhase } from "../_util/step_phase.ts";
import type { AssistantMessage, ChatMessage, ToolCall } from "../_util/chat_message.ts";
import { type CapLimits, DEFAULT_CAP_LIMITS } from "../_util/cap_output.ts";
import { redactStrings } from "../_util/redact_strings.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { ToolBroker, ToolResult } from "../broker/tool_broker.ts";
import type { Model } from "../llm/model.ts";
import {
  type BudgetBreach,
  BudgetChecker,
  type PriorSpend,
  type RunBudgets,
} from "./budget_checker.ts";
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
import { type Stall, StallDetector, type StallOptions } from "./stall_detector.ts";
import { addStallHint, stallData } from "./stall_hint.ts";
import { resumedAnswers } from "./resumed_answers.ts";
import type { PendingToolCall } from "../session/session_store.ts";

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
  /**
   * What the session spent before this run: the token, cost and tool-call budgets count the
   * session's whole spend (issue 14, case 6). @default nothing
   */
  priorSpend?: Partial<PriorSpend>;
  /**
   * Calls of the transcript's last assistant message still without a result (a resumed session,
   * design §8.3): the run answers them first. A `started` one is answered `interrupted` (it may
   * have had effects; it never runs again); one that was `awaiting_approval` is asked again when
   * `askAgain`, else answered `not started`; a `not_started` one runs (gated like any call).
   * @default none
   */
  pending?: { calls: readonly PendingToolCall[]; askAgain: boolean };
  /** Milliseconds between `tool_running` heartbeats of a long tool call. @default 60_000 */
  toolHeartbeatMs?: number;
  /**
   * Stall detection: a cycle of one to three calls with the same results, seen `hintAfter` times,
   * gets a hint; `stopAfter` more times after it, the run ends `stalled`. @default 3 and 3
   */
  stall?: StallOptions;
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
  | { type: "stalled"; stall: Stall; stats: RunStats }
  | { type: "interrupted"; stats: RunStats }
  | { type: "failed"; error: Error; stats: RunStats };

/** Results of calls that must not run (resumed ones), by position. */
type Answers = (ToolResult | undefined)[];

type NextStep =
  | { type: "call_model" }
  | { type: "run_tools"; message: AssistantMessage; outputCut?: true; answered?: Answers }
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
  const budgets = new BudgetChecker(options.budgets, options.priorSpend);
  const stalls = new StallDetector(options.stall);
  // The runtime budget aborts whatever is running when it is spent, not only between steps.
  const deadline = new AbortController();
  let runtimeBreach: BudgetBreach | undefined;
  const remaining = budgets.remainingMs(stats, now());
  const timer = remaining === undefined ? undefined : setTimeout(() => {
    // The timer may fire a little before the clock reaches the limit (timer resolution, the
    // moment `remaining` was taken): the budget is spent all the same, and it is the limit.
    runtimeBreach = budgets.runtimeSpent(stats, now());
    deadline.abort();
  }, remaining);
  const signal = options.signal
    ? AbortSignal.any([options.signal, deadline.signal])
    : deadline.signal;
  const context = makeContext(options, stats, signal, now, budgets);
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
  const pending = options.pending?.calls ?? [];
  let step: NextStep = pending.length > 0
    ? {
      type: "run_tools",
      message: { role: "assistant", content: null, tool_calls: pending.map((p) => p.call) },
      answered: resumedAnswers(pending, options.pending!.askAgain),
    }
    : { type: "call_model" };
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
          const entries = await runToolsStep(context, step.message, {
            runnable: batch.runnable,
            refusal: batch.breach && notRun(batch.breach),
            outputCut: step.outputCut,
            ...(step.answered ? { answered: step.answered } : {}),
          });
          if (batch.breach) {
            step = { type: "budget_exceeded", breach: batch.breach };
            break;
          }
          const stall = stalls.observe(entries);
          if (stall?.action === "stop") {
            context.emit("stall_detected", stallData(stall));
            return { type: "stalled", stall, stats };
          }
          if (stall) await addStallHint(context, stall, options.stall?.stopAfter ?? 3);
          step = { type: "call_model" };
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
  budgets: BudgetChecker,
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
    budgets,
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
      const emitting = startPhase();
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
      endPhase("emit", emitting);
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
