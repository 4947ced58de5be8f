/**
 * What every step of a run shares: its dependencies, its transcript and its counters.
 *
 * @module
 */
import type { CapLimits } from "../_util/cap_output.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { Model, ToolSpec } from "../llm/model.ts";
import type { RunEventData, RunEventType } from "./run_event.ts";
import type { RunStats } from "./run_stats.ts";
import type { ToolGate } from "./gate_tool_calls.ts";
import type { ToolSet } from "./tool_set.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import type { PlanState } from "./plan_state.ts";
import type { CompactionState, ContextManager } from "./context_manager.ts";
import type { StepRunner } from "./step_runner.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { BudgetChecker } from "./budget_checker.ts";

/** The journal the loop appends to: an open session satisfies it. */
export interface TranscriptJournal {
  /**
   * Append one message (written when the promise resolves; durable by the next call's start, see
   * `OpenSession.append`).
   */
  append(message: ChatMessage): Promise<void>;
  /**
   * Persist the rolling compaction digest so a resumed session keeps it (an open session
   * writes a `compaction` journal record). Optional: without it the digest lives for this run.
   */
  recordCompaction?(state: CompactionState): Promise<void>;
  /**
   * Persist the tokens one model request spent, so a resumed session counts them against its
   * budgets (a `usage` record). Optional: without it a resume knows nothing of this run's spend.
   */
  recordUsage?(usage: { inputTokens: number; outputTokens: number }): Promise<void>;
  /**
   * Persist that these calls are being put to the approver, before it is asked (design §8.3).
   * Optional: without it a resume cannot tell a call that waited for approval from one that ran.
   */
  recordApprovalRequested?(
    requests: readonly { callId: string; verdict: Verdict }[],
  ): Promise<void>;
  /** Persist that a call is about to run, before it can have an effect (design §8.3). Optional. */
  recordToolStarted?(callId: string): Promise<void>;
  /**
   * Every tool-call id the session already holds, whatever the transcript shows (rewound or
   * compacted turns included): a new call with one of them gets a fresh id. @default the ids of
   * the run's transcript
   */
  readonly toolCallIds?: ReadonlySet<string>;
}

/** The state one run's steps share. Built by {@linkcode runAgent}. */
export interface RunContext {
  readonly model: Model;
  readonly broker: ToolBroker;
  readonly journal: TranscriptJournal;
  /** Runs and records every model call and tool call (default: the journal). */
  readonly steps: StepRunner;
  /** The run's tools: every call is looked up here, once. */
  readonly tools: ToolSet;
  /** What the model is told of them (`tools.specs`). */
  readonly toolSpecs: ToolSpec[];
  /** The transcript in order (results in call order), as it will be sent next. */
  readonly messages: ChatMessage[];
  readonly stats: RunStats;
  readonly maxToolParallel: number;
  /** The run's budgets, with what the session spent before it (a request over it is not sent). */
  readonly budgets?: BudgetChecker;
  /** The cap on each tool result the model reads. @default DEFAULT_CAP_LIMITS */
  readonly toolOutput?: CapLimits;
  /** Classifies and approves tool calls; without it every call runs (the broker's fixed scope). */
  readonly gate?: ToolGate;
  /** The run's plan and the ledger of completed calls its checks are proven by. */
  readonly plan: PlanState;
  /** Answers `clarify`; without it every question is denied. */
  readonly clarifier?: Clarifier;
  /** Decides what each model request sends (trimming, compaction); without it, everything. */
  readonly contextManager?: ContextManager;
  readonly signal: AbortSignal;
  readonly now: () => number;
  /** Milliseconds between `tool_running` heartbeats of one long tool call. */
  readonly heartbeatMs: number;
  /** Applied to everything emitted; `forms` (see `Redactor`) enables redaction across deltas. */
  readonly redact: ((text: string) => string) & { forms?: readonly string[]; patterns?: boolean };
  /** Emit an event of the current iteration (redacts every string; isolates a throwing sink). */
  emit<T extends RunEventType>(type: T, data: RunEventData[T], extra?: { tool?: string }): void;
}
