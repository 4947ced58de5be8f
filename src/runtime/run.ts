/**
 * One run on a session host: the loop over the host's model, broker and session, with its own id,
 * events, budgets and result (design §8.1).
 *
 * @module
 */
import type { CapLimits } from "../_util/cap_output.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import { redactStrings } from "../_util/redact_strings.ts";
import type { Redactor } from "../_util/redact_known_values.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { Model } from "../llm/model.ts";
import { BudgetChecker, type PriorSpend, type RunBudgets } from "../loop/budget_checker.ts";
import type { ContextOptions } from "../loop/context_manager.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import { makeRunEvent } from "../loop/make_run_event.ts";
import { runAgent, type RunOutcome as AgentOutcome } from "../loop/run_agent.ts";
import type { RunEvent, RunEventData, RunEventType } from "../loop/run_event.ts";
import { newRunStats, type RunStats } from "../loop/run_stats.ts";
import { journalStepRunner } from "../loop/journal_step_runner.ts";
import type { StepRunner } from "../loop/step_runner.ts";
import type {
  OpenSession,
  PendingToolCall,
  ToolCallRepair,
  TornTail,
} from "../session/session_store.ts";
import type { StallOptions } from "../loop/stall_detector.ts";
import type { EventSubscription, RuntimeEvent } from "./event_subscription.ts";
import type { HostCheckpoints } from "./host_checkpoints.ts";
import { RunEventLog, type RunSubscribeOptions } from "./run_event_log.ts";
import { type Discarded, type RunOutcome, runOutcomeOf } from "./run_outcome.ts";
import type { ToolSet } from "../loop/tool_set.ts";

/** Everything a run is started with (built by the session host). */
export interface RunInit {
  runId: string;
  session: OpenSession;
  model: Model;
  broker: ToolBroker;
  gate: ToolGate;
  clarifier: Clarifier;
  tools: ToolSet;
  /** The transcript to continue from (ends with a user or tool message). */
  messages: readonly ChatMessage[];
  maxIterations: number;
  maxToolParallel: number;
  budgets: RunBudgets;
  context: ContextOptions;
  toolOutput: CapLimits;
  /** `run_started` facts. */
  sandbox: string;
  resumed: boolean;
  /** Tool calls the session's repair answered (reported once, by the host's first run). */
  repaired: readonly string[];
  /** Tool calls the load sends repaired (reported once, with `repaired`). */
  toolCallRepairs?: readonly ToolCallRepair[];
  /** The damaged journal tail the load moved aside (reported once). */
  tornTail?: TornTail;
  /** What the session spent before this run. */
  priorSpend?: PriorSpend;
  /** The last batch's calls still without a result, answered or run first. */
  pending?: { calls: readonly PendingToolCall[]; askAgain: boolean };
  /** Stall thresholds. */
  stall?: StallOptions;
  /** Asked when the run fails: a new session that never reached the model, and what was typed. */
  discardable?: () => Discarded | undefined;
  redact: Redactor;
  now: () => number;
  stepRunner?: StepRunner;
  /** The host's checkpoints: a checkpoint before and after each step that can write the workspace. */
  checkpoints?: HostCheckpoints;
  /** `run_started` facts: the trust level and the instruction files of the transcript. */
  trust?: string;
  instructions?: readonly { source: string; lines: number }[];
  toolHeartbeatMs?: number;
  historyLimit?: number;
  /** The caller's signal: aborting it interrupts the run (its reason, when a string, says why). */
  signal?: AbortSignal;
  /** Receives every numbered event too (the runtime's stream of all runs). */
  forward: (event: RuntimeEvent) => void;
  /** Called once when the run has ended (the host may start another). */
  onSettled: () => void;
}

/**
 * A run in progress or ended. It starts when it is created; its events are numbered from 1 and
 * kept in memory, so a subscriber that comes late replays them (`subscribe({ after })`). Dispose
 * it (`await using`) to stop its in-flight calls and wait for its end; the host keeps its broker,
 * children and background jobs for the next run.
 *
 * @example Follow a run, then replay its events after one already seen
 * ```ts
 * import { createRuntime } from "./create_runtime.ts";
 * import { ScriptedModel } from "../testing/scripted_model.ts";
 * const home = await Deno.makeTempDir();
 * const workspace = await Deno.makeTempDir();
 * try {
 *   await using runtime = await createRuntime({
 *     env: { HOME: home, PATH: "/usr/bin:/bin" },
 *     config: { sandbox: "none" },
 *     modelFactory: () => new ScriptedModel([{ text: "Hello." }]),
 *   });
 *   await using host = await runtime.openSession({ task: "Say hello." }, { workspace });
 *   await using run = await host.startRun();
 *   const ids = [];
 *   for await (const event of run.events) ids.push(event.id);
 *   const outcome = await run.result;
 *   const replayed = [];
 *   for await (const event of run.subscribe({ after: 1 })) replayed.push(event.id);
 *   if (outcome.type !== "completed" || replayed[0] !== ids[1]) throw new Error(ids.join());
 * } finally {
 *   await Deno.remove(home, { recursive: true });
 *   await Deno.remove(workspace, { recursive: true });
 * }
 * ```
 */
export class Run implements AsyncDisposable {
  /** The run's 128-bit hex id. */
  readonly id: string;
  /** The session it runs in. */
  readonly sessionId: string;
  /** Warnings for the operator about this run (e.g. a cost budget that cannot be enforced). */
  readonly warnings: readonly string[];
  /** The outcome; never rejects. */
  readonly result: Promise<RunOutcome>;
  readonly #log: RunEventLog;
  readonly #controller = new AbortController();
  #reason: string | undefined;

  /**
   * Made by `host.startRun()`, never directly.
   * @internal
   */
  constructor(init: RunInit, warnings: readonly string[] = []) {
    this.id = init.runId;
    this.sessionId = init.session.meta.id;
    this.warnings = warnings;
    this.#log = new RunEventLog(init.runId, {
      forward: init.forward,
      ...(init.historyLimit ? { historyLimit: init.historyLimit } : {}),
    });
    const signal = init.signal
      ? AbortSignal.any([init.signal, this.#controller.signal])
      : this.#controller.signal;
    this.result = this.#execute(init, signal).finally(() => {
      this.#log.end();
      init.onSettled();
    });
  }

  /** Every event of the run from the first, then live, until the run ends (a new stream each time). */
  get events(): AsyncIterable<RuntimeEvent> {
    return { [Symbol.asyncIterator]: () => this.subscribe() };
  }

  /** The `seq` of the newest event so far. */
  get lastSeq(): number {
    return this.#log.lastSeq;
  }

  /**
   * Follow the run: the events after `after` still in memory, then the live ones, in a bounded
   * buffer of its own (an overflow drops the oldest and leaves an `events_dropped` marker).
   *
   * @throws {RangeError} for a negative or fractional `after`, or a bad `bufferSize`
   */
  subscribe(options: RunSubscribeOptions = {}): EventSubscription {
    return this.#log.subscribe(options);
  }

  /**
   * Stop the run: the model request is aborted and the running tool calls are killed; the run
   * ends `interrupted` with `reason`. Idempotent; no effect once it has ended.
   */
  cancel(reason = "a cancel request"): void {
    if (this.#controller.signal.aborted) return;
    this.#reason = reason;
    this.#controller.abort(reason);
  }

  /** Cancel the run if it is still going, and wait for its end. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#log.ended) this.cancel("the run being disposed");
    await this.result;
  }

  async #execute(init: RunInit, signal: AbortSignal): Promise<RunOutcome> {
    const scope = { runId: init.runId, sessionId: this.sessionId };
    const emit = <T extends RunEventType>(type: T, data: RunEventData[T]) =>
      this.#append(makeRunEvent(type, redactStrings(data, init.redact), scope));
    const meta = init.session.meta;
    const pending = init.pending?.calls ?? [];
    emit("run_started", {
      model: meta.model,
      base_url: meta.baseUrl,
      sandbox: init.sandbox,
      max_iterations: init.maxIterations,
      workspace: meta.workspace,
      resumed: init.resumed,
      ...spendData(init),
      ...(pending.length > 0
        ? {
          pending_tool_calls: pending.map(({ call, state }) => ({
            call_id: call.id,
            name: call.function.name,
            state,
          })),
        }
        : {}),
      ...(init.trust ? { trust: init.trust } : {}),
      instructions: [...(init.instructions ?? [])],
      checkpoints: init.checkpoints ? init.checkpoints.off === undefined : false,
    });
    if (init.tornTail) emit("session_torn_tail", { ...init.tornTail });
    const stopEgress = init.broker.onEgress?.((decision) => {
      const { host, port, address, allowed, reason } = decision;
      emit("egress", {
        host,
        port,
        ...(address !== undefined ? { address } : {}),
        allowed,
        ...(reason !== undefined ? { reason } : {}),
      });
    });
    const stopRefusals = init.broker.onSandboxRefusal?.(({ callId, name, reason }) => {
      emit("sandbox_refused", { call_id: callId, name, reason });
    });
    const stopReverts = init.broker.onProtectedRevert?.(({ callId, name, paths }) => {
      emit("protected_reverted", { call_id: callId, name, paths });
    });
    const fixes = init.toolCallRepairs ?? [];
    if (init.repaired.length > 0 || fixes.length > 0) {
      const reminted = fixes.flatMap((r) =>
        r.originalId === undefined ? [] : [{ from: r.originalId, to: r.id }]
      );
      const reset = fixes.filter((r) => r.originalArguments !== undefined).map((r) => r.id);
      emit("session_repaired", {
        tool_call_ids: [...init.repaired],
        ...(reminted.length > 0 ? { reminted } : {}),
        ...(reset.length > 0 ? { arguments_reset: reset } : {}),
      });
    }
    const checkpoints = init.checkpoints?.forRun(
      init.stepRunner ?? journalStepRunner(init.session),
      emit,
    );
    const stepRunner = checkpoints?.runner ?? init.stepRunner;
    try {
      const outcome = await runAgent({
        model: init.model,
        broker: init.broker,
        journal: init.session,
        ...(stepRunner ? { stepRunner } : {}),
        messages: init.messages,
        tools: init.tools,
        maxIterations: init.maxIterations,
        maxToolParallel: init.maxToolParallel,
        runId: init.runId,
        sessionId: this.sessionId,
        onEvent: (event) => this.#append(event),
        signal,
        now: init.now,
        redact: init.redact,
        toolOutput: init.toolOutput,
        gate: init.gate,
        clarifier: init.clarifier,
        context: {
          ...init.context,
          ...(init.session.compaction ? { resume: init.session.compaction } : {}),
        },
        budgets: init.budgets,
        ...(init.priorSpend ? { priorSpend: init.priorSpend } : {}),
        ...(pending.length > 0 ? { pending: init.pending } : {}),
        ...(init.stall ? { stall: init.stall } : {}),
        ...(init.toolHeartbeatMs ? { toolHeartbeatMs: init.toolHeartbeatMs } : {}),
      }).catch((error): AgentOutcome => ({
        // The host checked the options: whatever still escapes the loop ends the run as data.
        type: "failed",
        error: error instanceof Error ? error : new Error(String(error)),
        stats: newRunStats(init.now()),
      }));
      await checkpoints?.finish().catch(() => {});
      const discarded = outcome.type === "failed" ? init.discardable?.() : undefined;
      const result = runOutcomeOf(outcome, {
        sessionId: this.sessionId,
        reason: this.#reason ?? reasonOf(init.signal),
        maxIterations: init.maxIterations,
        durationMs: Math.round(init.now() - outcome.stats.startedAt),
        ...(discarded ? { discarded } : {}),
      });
      if (result.type === "completed") {
        emit("run_completed", { duration_ms: result.durationMs, ...counts(result.stats) });
      } else {
        emit("run_failed", {
          duration_ms: result.durationMs,
          error_class: result.error instanceof OdekError ? result.error.code : "ERROR",
          message: init.redact(result.error.message),
          ...counts(result.stats),
        });
      }
      return result;
    } finally {
      stopEgress?.();
      stopRefusals?.();
      stopReverts?.();
    }
  }

  #append(event: RunEvent): void {
    this.#log.append(event);
  }
}

/** `run_started`'s `session_spend`: a resumed session's spend so far and what is left of it. */
function spendData(init: RunInit) {
  const prior = init.priorSpend;
  if (!init.resumed || !prior) return {};
  if (prior.inputTokens + prior.outputTokens + prior.toolCalls === 0) return {};
  const checker = new BudgetChecker(init.budgets, prior);
  return {
    session_spend: {
      input_tokens: prior.inputTokens,
      output_tokens: prior.outputTokens,
      tool_calls: prior.toolCalls,
      ...(checker.costEnforced ? { cost_usd: Math.round(prior.costUsd * 1e6) / 1e6 } : {}),
      left: checker.left(newRunStats(0)),
    },
  };
}

/** Why the caller's signal stopped the run: its reason when that is a string. */
function reasonOf(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return typeof reason === "string" && reason !== "" ? reason : "the caller's signal";
}

function counts(stats: RunStats) {
  return {
    input_tokens: stats.inputTokens,
    output_tokens: stats.outputTokens,
    iterations: stats.iterations,
    tool_calls: stats.toolCalls,
  };
}
