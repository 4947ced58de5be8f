/**
 * A session host (design §8.1): one session, its workspace and trust level, and what outlives a
 * single run — the broker with its tool children and background jobs, the egress proxy, the
 * approver (and its approval memory), the session lock. Each user message is a {@linkcode Run}.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { Redactor } from "../_util/redact_known_values.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { Model } from "../llm/model.ts";
import { BudgetChecker, type RunBudgets } from "../loop/budget_checker.ts";
import { checkRunLimits } from "../loop/check_run_limits.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { StepJournal } from "../loop/journal_step_runner.ts";
import { newRunId } from "../loop/make_run_event.ts";
import { isPartialSummary } from "../loop/partial_summary.ts";
import type { StepRunner } from "../loop/step_runner.ts";
import type { OpenSession, SessionMeta, SessionMetaPatch } from "../session/session_store.ts";
import { budgetsFromConfig } from "./budgets_from_config.ts";
import { checkFunction, checkObject, checkSignal, checkString } from "./check_option.ts";
import type { Settings } from "./compose.ts";
import { contextOptionsFor } from "./context_options.ts";
import type { RuntimeEvent } from "./event_subscription.ts";
import { Run } from "./run.ts";
import type { ToolSet } from "../loop/tool_set.ts";
import type { HostCheckpoints } from "./host_checkpoints.ts";
import {
  listTurns,
  type RewindOutcome,
  type RewindRequest,
  rewindSession,
  type Turn,
} from "./rewind_session.ts";

/** The limits of one run; each given one overrides the configuration's. */
export interface RunLimitsOverride extends RunBudgets {
  /** Model turns before the run stops (`budget_exceeded`). @default config `budgets.maxIterations` */
  maxIterations?: number;
  /** Tool calls of one reply that run at once (1–64). @default config `budgets.maxToolParallel` */
  maxToolParallel?: number;
}

/** Options for {@linkcode SessionHost.startRun}. */
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
   * Wraps the run's steps (a durable engine): given the default runner's journal, return the
   * runner. @default every step recorded in the session journal
   */
  stepRunner?: (journal: StepJournal) => StepRunner;
}

/** What a host is made of (built by `openSessionHost`). */
export interface HostParts {
  settings: Settings;
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
  /** The workspace's checkpoints (a checkpoint before and after each writing step). */
  checkpoints: HostCheckpoints;
  /** Saves what the checkpoint store keeps in memory: called when the host closes. */
  closeCheckpoints?: () => Promise<void>;
  /** The instruction files the transcript holds (`AGENTS.md`), for the banner. */
  instructions: readonly { source: string; lines: number }[];
  warnings: readonly string[];
  forward: (event: RuntimeEvent) => void;
  onClosed: (host: SessionHost) => void;
}

/**
 * A session host. Opened by `runtime.openSession()`; runs one {@linkcode Run} at a time.
 * Disposing it (`await using`) cancels a run still going and then releases everything it holds
 * — the broker's children and background jobs, the egress proxy, the session lock — whatever
 * failed before.
 *
 * @example Two runs on one host (a runtime from `createRuntime`)
 * ```ts ignore
 * await using host = await runtime.openSession({ task: "add a --verbose flag" });
 * const first = await (await host.startRun()).result;
 * const second = await (await host.startRun({ message: "now document it" })).result;
 * ```
 */
export class SessionHost implements AsyncDisposable {
  /** The session's id. */
  readonly sessionId: string;
  /** The workspace (real path). */
  readonly workspace: string;
  /** The directories granted besides the workspace (validated real paths). */
  readonly addDirs: readonly AddDir[];
  /** The trust level of every run on this host. */
  readonly trust: TrustLevel;
  /** Warnings for the operator about this host (shell disabled, no egress proxy, …). */
  readonly warnings: readonly string[];
  readonly #parts: HostParts;
  #patch: SessionMetaPatch;
  #resumed: boolean;
  #reportRepair = true;
  #active: Run | undefined;
  #starting = false;
  #closing: Promise<void> | undefined;

  /** @param parts what `openSessionHost` built */
  constructor(parts: HostParts) {
    this.#parts = parts;
    this.sessionId = parts.session.meta.id;
    this.workspace = parts.workspace;
    this.addDirs = parts.addDirs;
    this.trust = parts.trust;
    this.warnings = parts.warnings;
    this.#patch = parts.patch;
    this.#resumed = parts.resumed;
  }

  /** The session's meta record as it is now. */
  get meta(): SessionMeta {
    return this.#parts.session.meta;
  }

  /** The redactor of every sink (for the surface's own messages, e.g. an error on stderr). */
  get redact(): Redactor {
    return this.#parts.settings.redact;
  }

  /** The transcript as journaled (redacted). */
  get messages(): readonly ChatMessage[] {
    return this.#parts.session.messages;
  }

  /** The run in progress, if any. */
  get activeRun(): Run | undefined {
    return this.#active;
  }

  /** The instruction files the transcript holds (`AGENTS.md`), with their lines. */
  get instructions(): readonly { source: string; lines: number }[] {
    return this.#parts.instructions;
  }

  /** Why checkpoints are off for this host (`undefined`: each writing step is checkpointed). */
  get checkpointsOff(): string | undefined {
    return this.#parts.checkpoints.off;
  }

  /** The session's turns (its operator messages), each with the checkpoint before it. */
  turns(): Turn[] {
    return listTurns(this.#parts.session.messages, this.#parts.session.checkpoints);
  }

  /**
   * Take the session back to before a turn (default: the last, an undo): its files, its
   * conversation, or both (see {@linkcode rewindSession}). Not while a run is going.
   *
   * @throws {OdekError} `SESSION_BUSY` while a run is going or after close, and
   *   `rewindSession`'s errors
   */
  async rewind(request: RewindRequest = {}): Promise<RewindOutcome> {
    if (this.#closing || this.#active || this.#starting) {
      throw new OdekError(
        "SESSION_BUSY",
        `Session ${this.sessionId} cannot be rewound while a run is going (or after its host closed).`,
      );
    }
    this.#starting = true;
    try {
      const { checkpoints, session } = this.#parts;
      return await rewindSession(session, checkpoints.store, request, checkpoints.off);
    } finally {
      this.#starting = false;
    }
  }

  /** Whether {@linkcode SessionHost.close} was called. */
  get closed(): boolean {
    return this.#closing !== undefined;
  }

  /**
   * Start a run: append `message` (if any) and run the loop on. Nothing is written when a check
   * fails. One run at a time.
   *
   * @returns the run, already going
   * @throws {TypeError} / {@linkcode RangeError} for bad options, naming the option;
   *   {@linkcode OdekError} `SESSION_BUSY` while a run is going or after close, `USAGE` when the
   *   session has nothing left to do and no message was given, or the journal's error
   */
  async startRun(options: StartRunOptions = {}): Promise<Run> {
    checkObject("options", options);
    checkString("message", options.message);
    checkSignal("signal", options.signal);
    checkFunction("stepRunner", options.stepRunner);
    checkObject("budgets", options.budgets, true);
    const { maxIterations, maxToolParallel, ...overrides } = options.budgets ?? {};
    checkRunLimits(
      { maxIterations, maxToolParallel, budgets: overrides },
      { limits: "budgets.", budgets: "budgets." },
    );
    if (this.#closing) {
      throw new OdekError("SESSION_BUSY", `Session ${this.sessionId}'s host is closed.`);
    }
    if (this.#active || this.#starting) {
      throw new OdekError(
        "SESSION_BUSY",
        `Session ${this.sessionId} already has a run going (${
          this.#active?.id ?? "starting"
        }): wait for its result or cancel it first.`,
      );
    }
    this.#starting = true;
    try {
      return await this.#start(options, { maxIterations, maxToolParallel, overrides });
    } finally {
      this.#starting = false;
    }
  }

  async #start(
    options: StartRunOptions,
    limits: { maxIterations?: number; maxToolParallel?: number; overrides: RunBudgets },
  ): Promise<Run> {
    const { settings, session } = this.#parts;
    const { config } = settings;
    const messages = [...session.messages];
    const text = options.message?.trim();
    // A run stopped by its iteration budget ends with a partial summary: going on without a
    // message asks the model to continue.
    const next: ChatMessage | undefined = text
      ? { role: "user", content: text }
      : isPartialSummary(messages.at(-1))
      ? { role: "user", content: "[odek] Continue the task from where you stopped." }
      : undefined;
    const last = next ?? messages.at(-1);
    if (
      !last || (last.role === "assistant" && !last.tool_calls?.length) || last.role === "system"
    ) {
      throw new OdekError(
        "USAGE",
        `Session ${this.sessionId} has nothing left to do (its last turn is a final answer): give it a message, e.g. odek continue ${this.sessionId} "next step".`,
      );
    }
    if (Object.keys(this.#patch).length > 0) {
      await session.updateMeta(this.#patch);
      this.#patch = {};
    }
    if (next) {
      await session.append(next);
      messages.push(next);
    }
    const model = this.#parts.modelName;
    const budgets = { ...budgetsFromConfig(config, model), ...definedOnly(limits.overrides) };
    const warnings: string[] = [];
    const cap = budgets.maxCostUsd ?? 0;
    if (cap > 0 && !new BudgetChecker(budgets).costEnforced) {
      warnings.push(
        `the cost budget ($${cap}) is not enforced: set both models."${session.meta.model}".inputCostPerMillionUsd and outputCostPerMillionUsd in the config (token budgets still apply).`,
      );
    }
    const repaired = this.#reportRepair ? session.repairedToolCallIds : [];
    this.#reportRepair = false;
    const resumed = this.#resumed;
    this.#resumed = true;
    const run = new Run({
      runId: newRunId(),
      session,
      model: this.#parts.model,
      broker: this.#parts.broker,
      gate: this.#parts.gate,
      clarifier: this.#parts.clarifier,
      tools: this.#parts.tools,
      messages,
      maxIterations: limits.maxIterations ?? config.budgets.maxIterations,
      maxToolParallel: limits.maxToolParallel ?? config.budgets.maxToolParallel,
      budgets,
      context: contextOptionsFor(config, model),
      toolOutput: config.toolOutput,
      sandbox: config.sandbox,
      resumed,
      repaired,
      redact: settings.redact,
      now: () => performance.now(),
      ...(options.stepRunner ? { stepRunner: options.stepRunner(session) } : {}),
      checkpoints: this.#parts.checkpoints,
      trust: this.trust,
      instructions: this.#parts.instructions,
      ...(options.signal ? { signal: options.signal } : {}),
      forward: this.#parts.forward,
      onSettled: () => {
        if (this.#active === run) this.#active = undefined;
      },
    }, warnings);
    this.#active = run;
    return run;
  }

  /**
   * Cancel the run still going (and wait for it), then stop the broker's children, background
   * jobs and egress proxy and release the session lock. Each step runs whatever failed before.
   * Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #close(): Promise<void> {
    try {
      const run = this.#active;
      if (run) {
        run.cancel("the session host closing");
        await run.result;
      }
    } finally {
      try {
        await this.#parts.closeTools?.();
      } finally {
        await this.#closeBroker();
      }
    }
  }

  async #closeBroker(): Promise<void> {
    try {
      await this.#parts.broker.close();
    } finally {
      await this.#parts.closeCheckpoints?.().catch(() => {});
      try {
        await this.#parts.session.close();
      } finally {
        this.#parts.onClosed(this);
      }
    }
  }
}

function definedOnly(budgets: RunBudgets): RunBudgets {
  return Object.fromEntries(
    Object.entries(budgets).filter(([, value]) => value !== undefined),
  ) as RunBudgets;
}
