/**
 * A session host (design §8.1): one session, its workspace and trust level, and what outlives a
 * single run — the broker with its tool children and background jobs, the egress proxy, the
 * approver (and its approval memory), the session lock. Each user message is a {@linkcode Run}.
 *
 * @module
 */
import { WorkspaceGuard } from "../broker/workspace_guard.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import type { DiffOptions, FileChange } from "../checkpoint/checkpoint_store.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { Redactor } from "../_util/redact_known_values.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { DenyRule } from "../config/deny_rule.ts";
import type { OdekConfig } from "../config/odek_config.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import { BudgetChecker, type RunBudgets } from "../loop/budget_checker.ts";
import { newRunId } from "../loop/make_run_event.ts";
import type { PendingToolCall, SessionMeta, SessionMetaPatch } from "../session/session_store.ts";
import { budgetsFromConfig } from "./budgets_from_config.ts";
import { contextOptionsFor } from "./context_options.ts";
import { priorSpend } from "./prior_spend.ts";
import { Run } from "./run.ts";
import { directCallModel } from "./direct_call_model.ts";
import { prepareTurn } from "./_prepare_turn.ts";
import { checkStartRunOptions, definedOnly } from "./_run_option_checks.ts";
import {
  listTurns,
  type RewindOutcome,
  type RewindRequest,
  rewindSession,
  type Turn,
} from "./rewind_session.ts";

export type { HostParts, RunLimitsOverride, StartRunOptions } from "./session_host_parts.ts";
import type { HostParts, StartRunOptions } from "./session_host_parts.ts";

/**
 * A session host. Opened by `runtime.openSession()`; runs one {@linkcode Run} at a time.
 * Disposing it (`await using`) cancels a run still going and then releases everything it holds
 * — the broker's children and background jobs, the egress proxy, the session lock — whatever
 * failed before.
 *
 * @example Two runs on one host, then the session continued by another host
 * ```ts
 * import { createRuntime } from "./create_runtime.ts";
 * import { ScriptedModel } from "../testing/scripted_model.ts";
 * const home = await Deno.makeTempDir();
 * const workspace = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin" },
 *     config: { sandbox: "none" },
 *     modelFactory: () => new ScriptedModel((_request, i) => ({ text: `answer ${i + 1}` })),
 *   });
 *   let sessionId: string;
 *   {
 *     await using host = await runtime.openSession({ task: "add a --verbose flag" }, { workspace });
 *     sessionId = host.sessionId;
 *     await (await host.startRun()).result;
 *     await (await host.startRun({ message: "now document it" })).result;
 *   }
 *   await using again = await runtime.openSession({ sessionId });
 *   const outcome = await (await again.startRun({ message: "and test it" })).result;
 *   if (outcome.type !== "completed" || again.workspace !== await Deno.realPath(workspace)) {
 *     throw new Error(outcome.type);
 *   }
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 *   await Deno.remove(workspace, { recursive: true });
 * }
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
  /**
   * Warnings for the operator about this host (shell disabled, no egress proxy, each project
   * key ignored, a context file refused, …); the background parts' once up (`ready()`).
   */
  readonly warnings: readonly string[];
  /**
   * The configuration this host runs with: the user's layers and its workspace's `odek.jsonc`,
   * tightened (docs/configuration.md).
   */
  readonly config: OdekConfig;
  /** The deny rules the host's classifier applies, each with its layer and file. */
  readonly denyRules: readonly DenyRule[];
  readonly #parts: HostParts;
  #patch: SessionMetaPatch;
  #resumed: boolean;
  #reportRepair = true;
  /** What the operator typed into a session this host created (the task first). */
  readonly #typed: string[] = [];
  /** The last run ended `failed` with nothing of the session worth keeping (issue 14, case 10). */
  #discard = false;
  #active: Run | undefined;
  #starting = false;
  #closing: Promise<void> | undefined;

  /**
   * Made by `runtime.openSession()`, never directly.
   * @internal
   */
  constructor(parts: HostParts) {
    this.#parts = parts;
    this.sessionId = parts.session.meta.id;
    this.workspace = parts.workspace;
    this.addDirs = parts.addDirs;
    this.trust = parts.trust;
    this.warnings = parts.warnings;
    this.config = parts.settings.config;
    this.denyRules = parts.hostConfig?.denyRules ?? [];
    this.#patch = parts.patch;
    this.#resumed = parts.resumed;
    if (parts.task !== undefined) this.#typed.push(parts.task);
  }

  /**
   * Start the parts this host starts later (the broker with its sandbox probes, egress proxy and
   * network namespace; the Bash parser; the checkpoint store) and wait for them, their warnings
   * appended to `warnings`. A run starts them as its first model request leaves and waits for
   * them before its first tool call (docs/runtime.md).
   *
   * @throws {OdekError} what failed to start (e.g. `SANDBOX_UNAVAILABLE`); a run then ends
   *   `failed` with it
   */
  async ready(): Promise<void> {
    await this.#parts.ready?.();
  }

  /** `ready()`'s promise once something started the parts, else `undefined`. @internal */
  whenReady(): Promise<void> | undefined {
    return this.#parts.started ? this.#parts.started() : Promise.resolve();
  }

  /** The session's meta record as it is now. */
  get meta(): SessionMeta {
    return this.#parts.session.meta;
  }

  /**
   * The redactor of every sink (for the surface's own messages, e.g. an error on stderr).
   * @internal for odek's own surfaces; not part of the library API
   */
  get redact(): Redactor {
    return this.#parts.settings.redact;
  }

  /** The transcript as journaled (redacted). */
  get messages(): readonly ChatMessage[] {
    return this.#parts.session.messages;
  }

  /**
   * The calls of the session's last batch still without a result (design §8.3): after a resume,
   * those that never started (`awaiting_approval` ones with the verdict the operator saw); after a
   * run that stopped at an approval prompt, its batch. The next run without a message runs them
   * (asking the approver again for those that were waiting, when the host asks again: option
   * `reaskApprovals` of `openSession`); a run with a message answers them as not started first.
   */
  get pendingToolCalls(): readonly PendingToolCall[] {
    return this.#parts.session.pendingToolCalls;
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
   * What the session changed in the workspace: how the files differ now from the checkpoint
   * before its first writing turn (`[]` when no turn wrote, or checkpoints are off — see
   * {@linkcode SessionHost.checkpointsOff}). Files changed outside odek since count too.
   *
   * @param options `withDiff` adds each text file's unified diff (at most `maxDiffLines` lines)
   * @returns the changed files, by path
   */
  async changes(options: DiffOptions = {}): Promise<FileChange[]> {
    const store = this.#parts.checkpoints.store;
    const first = this.turns().find((turn) => turn.checkpoint !== undefined)?.checkpoint;
    if (!store || first === undefined) return [];
    return await store.diff(first, undefined, options);
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
      const guard = new WorkspaceGuard({ home: this.#parts.settings.paths.home });
      const extra = () => guard.facts(this.workspace).protectedExtra;
      return await rewindSession(session, checkpoints.store, request, checkpoints.off, extra);
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
    const { maxIterations, maxToolParallel, overrides } = checkStartRunOptions(options);
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
    const { messages, pending, text } = await prepareTurn(session, options.message, this.#patch);
    this.#patch = {};
    if (text) this.#typed.push(text);
    const model = this.#parts.modelName;
    const budgets = { ...budgetsFromConfig(config, model), ...definedOnly(limits.overrides) };
    const prior = priorSpend(session.spend, config, model);
    const warnings: string[] = [];
    const cap = budgets.maxCostUsd ?? 0;
    if (cap > 0 && !new BudgetChecker(budgets).costEnforced) {
      warnings.push(
        `the cost budget ($${cap}) is not enforced: set both models."${session.meta.model}".inputCostPerMillionUsd and outputCostPerMillionUsd in the config (token budgets still apply).`,
      );
    }
    const report = this.#reportRepair;
    const repaired = report ? session.repairedToolCallIds : [];
    this.#reportRepair = false;
    const resumed = this.#resumed;
    this.#resumed = true;
    const run = new Run({
      runId: newRunId(),
      session,
      model: options.toolCall
        ? directCallModel({
          id: options.toolCall.id ?? `direct-${crypto.randomUUID()}`,
          ...options.toolCall,
        })
        : this.#parts.model,
      broker: this.#parts.broker,
      gate: this.#parts.gate,
      clarifier: this.#parts.clarifier,
      tools: this.#parts.tools,
      messages,
      maxIterations: options.toolCall ? 2 : limits.maxIterations ?? config.budgets.maxIterations,
      maxToolParallel: limits.maxToolParallel ?? config.budgets.maxToolParallel,
      budgets,
      context: {
        ...contextOptionsFor(config, model),
        ...(options.compact ? { compactFirst: true } : {}),
      },
      toolOutput: config.toolOutput,
      sandbox: config.sandbox,
      resumed,
      repaired,
      ...(report ? { toolCallRepairs: session.toolCallRepairs } : {}),
      ...(report && session.tornTail ? { tornTail: session.tornTail } : {}),
      priorSpend: prior,
      pending: { calls: pending, askAgain: this.#parts.askAgain },
      stall: config.stall,
      discardable: () => this.#discardable(),
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
    void run.result.then((outcome) => {
      this.#discard = outcome.type === "failed" && outcome.discarded !== undefined;
    });
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

  /** {@linkcode SessionHost.close}, for `await using`. */
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

  /**
   * A session this host created whose runs never got a model reply (issue 14, case 10): what the
   * operator typed, to give back; it is removed when the host closes after a failed run.
   */
  #discardable(): { messages: readonly string[] } | undefined {
    if (this.#parts.resumed || this.#typed.length === 0) return undefined;
    const replied = this.#parts.session.messages.some((m) => m.role === "assistant");
    return replied ? undefined : { messages: [...this.#typed] };
  }

  async #closeBroker(): Promise<void> {
    try {
      await this.#parts.broker.close();
    } finally {
      await this.#parts.closeCheckpoints?.().catch(() => {});
      try {
        const discard = this.#discard && this.#discardable() !== undefined;
        await this.#parts.session.close();
        if (discard) {
          await this.#parts.settings.store.delete(this.sessionId).catch(() => {});
        }
      } finally {
        this.#parts.onClosed(this);
      }
    }
  }
}
