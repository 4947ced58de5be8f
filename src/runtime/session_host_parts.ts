/**
 * The shapes a {@linkcode SessionHost} is built from and started with: its parts (built by
 * `openSessionHost`), a run's options and its limits.
 *
 * @module
 */
import type { DirectToolCall } from "./direct_call_model.ts";
import type { SessionHost } from "./session_host.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { Model } from "../llm/model.ts";
import { type RunBudgets } from "../loop/budget_checker.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { StepJournal } from "../loop/journal_step_runner.ts";
import type { StepRunner } from "../loop/step_runner.ts";
import type { OpenSession, SessionMetaPatch } from "../session/session_store.ts";
import type { Settings } from "./compose.ts";
import type { HostConfig } from "./host_config.ts";
import type { RuntimeEvent } from "./event_subscription.ts";
import type { ToolSet } from "../loop/tool_set.ts";
import type { HostCheckpoints } from "./host_checkpoints.ts";

/**
 * The limits of one run; each given one overrides the configuration's.
 *
 * @example Ten turns and two minutes at most
 * ```ts
 * import type { RunLimitsOverride } from "./session_host.ts";
 * const limits: RunLimitsOverride = { maxIterations: 10, maxRuntimeMs: 120_000, maxToolParallel: 2 };
 * if (limits.maxIterations !== 10) throw new Error("limits");
 * ```
 */
export interface RunLimitsOverride extends RunBudgets {
  /** Model turns before the run stops (`budget_exceeded`). @default config `budgets.maxIterations` */
  maxIterations?: number;
  /** Tool calls of one reply that run at once (1–64). @default config `budgets.maxToolParallel` */
  maxToolParallel?: number;
}

/**
 * Options for {@linkcode SessionHost.startRun}.
 *
 * @example A follow-up message with a time limit
 * ```ts
 * import type { StartRunOptions } from "./session_host.ts";
 * const options: StartRunOptions = {
 *   message: "now add a test for it",
 *   budgets: { maxToolCalls: 50 },
 *   signal: AbortSignal.timeout(600_000),
 * };
 * if (options.budgets?.maxToolCalls !== 50) throw new Error("budgets");
 * ```
 */
export interface StartRunOptions {
  /**
   * A user message appended before the run starts. @default none: the transcript goes on from
   * where it is (a new session's task; a run stopped by its iteration budget is asked to go on)
   */
  message?: string;
  /** Limits of this run (`maxRuntimeMs` at most 2³¹−1). @default the configuration's */
  budgets?: RunLimitsOverride;
  /** Aborting it interrupts the run; a string reason (e.g. `"SIGINT"`) names what stopped it. */
  signal?: AbortSignal;
  /**
   * Before the first model request, fold the earlier turns (every unprotected turn group but the
   * newest) into the rolling digest, whatever the context estimate (the interactive `/compact`;
   * docs/context.md). With `context.compaction` off they are only left out. @default false
   */
  compact?: boolean;
  /**
   * Wraps the run's steps (a durable engine): given the default runner's journal, return the
   * runner. @default every step recorded in the session journal
   * @internal for odek's durable engine; not part of the library API yet
   */
  stepRunner?: (journal: StepJournal) => StepRunner;
  /**
   * Run exactly this tool call, named by the surface rather than the model (an MCP client of
   * `odek mcp serve`): the run's one step is the call — validated, classified, approved,
   * sandboxed and journaled like a model's — and the run ends after its result, which is the
   * last tool message of `host.messages` (id `toolCall.id`). Needs `message` (what the caller
   * asked, recorded as the user's turn). No model request is made. @default the model decides
   */
  toolCall?: DirectToolCall;
}

/** What a host is made of (built by `openSessionHost`). */
export interface HostParts {
  /** The host's settings: its `config` is the host's own (the project layer included). */
  settings: Settings;
  /** The host's configuration with origins, deny rules and the project file. @default from `settings` */
  hostConfig?: HostConfig;
  session: OpenSession;
  model: Model;
  broker: ToolBroker;
  gate: ToolGate;
  clarifier: Clarifier;
  tools: ToolSet;
  /** Stops the host's tool providers (MCP servers, …): called after the last run, before the broker. */
  closeTools?: () => Promise<void>;
  workspace: string;
  addDirs: readonly AddDir[];
  trust: TrustLevel;
  /** The model and base URL the host runs with (a continued session may have changed them). */
  modelName: string;
  patch: SessionMetaPatch;
  /** Whether the session was opened from an existing one. */
  resumed: boolean;
  /** A new session's task (given back when the session never reached the model). */
  task?: string;
  /**
   * Whether calls that were waiting for approval when an earlier run stopped are asked again
   * (else answered `not started`; design §8.3).
   */
  askAgain: boolean;
  /** The workspace's checkpoints (a checkpoint before and after each writing step). */
  checkpoints: HostCheckpoints;
  /** Saves what the checkpoint store keeps in memory: called when the host closes. */
  closeCheckpoints?: () => Promise<void>;
  /**
   * Starts the parts the host starts later (broker, classifier, checkpoint store; idempotent)
   * and resolves when they are up, their warnings appended to `warnings`; rejects with what
   * failed. @default up at once
   */
  ready?: () => Promise<void>;
  /** `ready()`'s promise once something started the parts, else `undefined`; starts nothing. */
  started?: () => Promise<void> | undefined;
  /** The instruction files the transcript holds (`AGENTS.md`), for the banner. */
  instructions: readonly { source: string; lines: number }[];
  warnings: readonly string[];
  forward: (event: RuntimeEvent) => void;
  onClosed: (host: SessionHost) => void;
}
