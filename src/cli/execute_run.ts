/**
 * Runs the loop for `odek run` and `odek continue`: signal handling, rendering (terminal or
 * `--json`), the closing summary line, and the exit code.
 *
 * @module
 */
import type { CapLimits } from "../_util/cap_output.ts";
import type { ChatMessage } from "../_util/chat_message.ts";
import { redactStrings } from "../_util/redact_strings.ts";
import { OdekError } from "../_util/odek_error.ts";
import { BUILTIN_TOOLS } from "../broker/builtin_tools.ts";
import { builtinToolSpecs } from "../loop/builtin_tool_specs.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { Model } from "../llm/model.ts";
import { makeRunEvent, newRunId } from "../loop/make_run_event.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { Clarifier } from "../approval/clarifier.ts";
import { buildClarifier } from "./build_gate.ts";
import type { ContextOptions } from "../loop/context_manager.ts";
import { runAgent } from "../loop/run_agent.ts";
import type { RunEvent } from "../loop/run_event.ts";
import { type BudgetBreach, BudgetChecker, type RunBudgets } from "../loop/budget_checker.ts";
import type { RunStats } from "../loop/run_stats.ts";
import type { OpenSession } from "../session/session_store.ts";
import type { CliIO } from "./cli_io.ts";
import type { EventsJsonlSink } from "./events_jsonl_sink.ts";
import { EXIT, exitCodeFor } from "./exit_code.ts";
import { TerminalRenderer } from "./terminal_renderer.ts";
import { terminalSafeJson } from "./terminal_safe_json.ts";
import { terminalSafe } from "./terminal_safe.ts";

/** Inputs of {@linkcode executeRun}. */
export interface ExecuteRunOptions {
  io: CliIO;
  session: OpenSession;
  /** The transcript to continue from (ends with a user or tool message). */
  messages: readonly ChatMessage[];
  model: Model;
  broker: ToolBroker;
  json: boolean;
  maxIterations: number;
  maxToolParallel: number;
  sandbox: string;
  redact: ((text: string) => string) & { forms?: readonly string[]; patterns?: boolean };
  resumed: boolean;
  /** The cap on each tool result (config `toolOutput`). @default 16 KiB: 12 KiB head, 4 KiB tail */
  toolOutput?: CapLimits;
  /** Classifies and approves tool calls. */
  gate?: ToolGate;
  /** Answers `clarify`. @default the terminal when there is one, else nobody */
  clarifier?: Clarifier;
  /** Context-management settings (window, compaction); the session's digest is added here. */
  context?: ContextOptions;
  /** Hard budgets (see `budgetsFromConfig`). @default none */
  budgets?: RunBudgets;
  /** The `--events-jsonl` audit sink, already open; closed when the run ends. */
  events?: EventsJsonlSink;
  /** Milliseconds between `tool_running` heartbeats. @default 60_000 */
  toolHeartbeatMs?: number;
}

/**
 * Run to the end and return the exit code (0 ok, 1 error, 4 budget, 130 SIGINT, 143 SIGTERM).
 * The session is closed (its lock released), the broker's children stopped and the events file
 * closed in every case.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<number> {
  const { io, session } = options;
  const runId = newRunId();
  const controller = new AbortController();
  let signalName: "SIGINT" | "SIGTERM" | undefined;
  const stop = (name: "SIGINT" | "SIGTERM") => () => {
    if (signalName) return;
    signalName = name;
    io.stderr.write(`\nodek: ${name} received: stopping tools and saving the session…\n`);
    controller.abort();
  };
  const removers = [io.onSignal("SIGINT", stop("SIGINT")), io.onSignal("SIGTERM", stop("SIGTERM"))];
  const color = io.stderrIsTerminal && !("NO_COLOR" in io.env);
  const renderer = options.json ? undefined : new TerminalRenderer({
    stdout: io.stdout,
    stderr: io.stderr,
    stderrIsTerminal: io.stderrIsTerminal,
    color,
  });
  const emit = (raw: RunEvent) => {
    // The loop's events are redacted already; this covers the ones made here (run_started, …).
    const event = { ...raw, data: redactStrings(raw.data, options.redact) } as RunEvent;
    options.events?.handle(event);
    if (options.json) io.stdout.write(`${terminalSafeJson(event)}\n`);
    else renderer!.handle(event);
  };
  const cap = options.budgets?.maxCostUsd ?? 0;
  if (cap > 0 && !new BudgetChecker(options.budgets).costEnforced) {
    io.stderr.write(
      `odek: the cost budget ($${cap}) is not enforced: set both models."${session.meta.model}".inputCostPerMillionUsd and outputCostPerMillionUsd in the config (token budgets still apply).\n`,
    );
  }
  const scope = { runId, sessionId: session.meta.id };
  emit(makeRunEvent("run_started", {
    model: session.meta.model,
    base_url: session.meta.baseUrl,
    sandbox: options.sandbox,
    max_iterations: options.maxIterations,
    workspace: session.meta.workspace,
    resumed: options.resumed,
  }, scope));
  const stopEgress = options.broker.onEgress?.((decision) => {
    const { host, port, address, allowed, reason } = decision;
    emit(makeRunEvent("egress", {
      host,
      port,
      ...(address !== undefined ? { address } : {}),
      allowed,
      ...(reason !== undefined ? { reason } : {}),
    }, scope));
  });
  const stopRefusals = options.broker.onSandboxRefusal?.(({ callId, name, reason }) => {
    emit(makeRunEvent("sandbox_refused", { call_id: callId, name, reason }, scope));
  });
  if (session.repairedToolCallIds.length > 0) {
    emit(
      makeRunEvent("session_repaired", { tool_call_ids: [...session.repairedToolCallIds] }, scope),
    );
  }
  try {
    const outcome = await runAgent({
      model: options.model,
      broker: options.broker,
      journal: session,
      messages: options.messages,
      tools: BUILTIN_TOOLS,
      toolSpecs: builtinToolSpecs(),
      maxIterations: options.maxIterations,
      maxToolParallel: options.maxToolParallel,
      runId,
      sessionId: session.meta.id,
      onEvent: emit,
      signal: controller.signal,
      redact: options.redact,
      ...(options.toolOutput ? { toolOutput: options.toolOutput } : {}),
      ...(options.gate ? { gate: options.gate } : {}),
      clarifier: options.clarifier ?? await buildClarifier(),
      context: {
        ...options.context,
        ...(session.compaction ? { resume: session.compaction } : {}),
      },
      ...(options.budgets ? { budgets: options.budgets } : {}),
      ...(options.toolHeartbeatMs ? { toolHeartbeatMs: options.toolHeartbeatMs } : {}),
    });
    renderer?.close();
    const id = session.meta.id;
    switch (outcome.type) {
      case "completed":
        emit(
          makeRunEvent("run_completed", {
            duration_ms: elapsed(outcome.stats),
            ...counts(outcome.stats),
          }, scope),
        );
        io.stderr.write(`odek: done · ${summary(outcome.stats)} · session ${id}\n`);
        return EXIT.ok;
      case "budget_exceeded":
        return fail(
          options,
          scope,
          outcome.stats,
          new OdekError("BUDGET_EXCEEDED", budgetMessage(outcome.breach, options.maxIterations)),
          outcome.breach.limit_name === "iterations"
            ? `The session is saved: continue it with odek continue ${id} --max-iterations <n>.`
            : `The session is saved: continue it with odek continue ${id} (with a higher limit).`,
        );
      case "interrupted": {
        const error = new OdekError(
          "INTERRUPTED",
          `Interrupted by ${
            signalName ?? "a signal"
          }. The session is saved: resume it with odek continue ${id}.`,
        );
        fail(options, scope, outcome.stats, error);
        return signalName === "SIGTERM" ? EXIT.terminated : EXIT.interrupted;
      }
      case "failed":
        return fail(
          options,
          scope,
          outcome.stats,
          outcome.error,
          `The session is saved: resume it with odek continue ${id}.`,
        );
      default: {
        const unreachable: never = outcome;
        throw new TypeError(`Unknown outcome: ${JSON.stringify(unreachable)}`);
      }
    }
  } finally {
    renderer?.close();
    removers.forEach((remove) => remove());
    stopEgress?.();
    stopRefusals?.();
    await options.broker.close();
    await session.close();
    await closeEvents(options.events, io);
  }

  function fail(
    opts: ExecuteRunOptions,
    eventScope: { runId: string; sessionId: string },
    stats: RunStats,
    error: Error,
    hint?: string,
  ): number {
    const code = error instanceof OdekError ? error.code : "ERROR";
    const message = opts.redact(error.message);
    emit(
      makeRunEvent("run_failed", {
        duration_ms: elapsed(stats),
        error_class: code,
        message,
        ...counts(stats),
      }, eventScope),
    );
    // The message may quote a provider's error body: nothing in it may drive the terminal.
    io.stderr.write(
      `odek: ${terminalSafe(message)}${hint ? ` ${hint}` : ""}\nodek: ${summary(stats)}\n`,
    );
    return exitCodeFor(error);
  }
}

/** What the operator reads when a budget stops the run: the budget, what was used, the limit. */
function budgetMessage(breach: BudgetBreach, maxIterations: number): string {
  const { observed, limit } = breach;
  switch (breach.limit_name) {
    case "iterations":
      return `Stopped after ${observed} model turns (--max-iterations ${maxIterations}) without a final answer.`;
    case "runtime":
      return `Runtime budget spent: ${observed} s of ${limit} s (--max-runtime, budgets.maxRuntimeSeconds); what was running was stopped.`;
    case "tool_calls":
      return `Tool-call budget spent: ${observed} tool calls asked for, the limit is ${limit} (--max-tool-calls, budgets.maxToolCalls); calls beyond it did not run.`;
    case "input_tokens":
      return `Input-token budget spent: ${observed} of ${limit} tokens (--max-input-tokens, budgets.maxInputTokens).`;
    case "output_tokens":
      return `Output-token budget spent: ${observed} of ${limit} tokens (--max-output-tokens, budgets.maxOutputTokens).`;
    case "cost_usd":
      return `Cost budget spent: an estimated $${observed} of $${limit} (--max-cost-usd, budgets.maxCostUsd).`;
    default: {
      const unreachable: never = breach.limit_name;
      throw new TypeError(`Unknown budget: ${unreachable}`);
    }
  }
}

async function closeEvents(events: EventsJsonlSink | undefined, io: CliIO): Promise<void> {
  if (!events) return;
  await events.close();
  if (events.error) {
    io.stderr.write(
      `odek: writing the events file failed (${events.error.message}); ${events.dropped} event(s) were not written.\n`,
    );
  } else if (events.dropped > 0) {
    io.stderr.write(
      `odek: the events file missed ${events.dropped} event(s): the disk could not keep up.\n`,
    );
  }
}

function counts(stats: RunStats) {
  return {
    input_tokens: stats.inputTokens,
    output_tokens: stats.outputTokens,
    iterations: stats.iterations,
    tool_calls: stats.toolCalls,
  };
}

function elapsed(stats: RunStats): number {
  return Math.round(performance.now() - stats.startedAt);
}

function summary(stats: RunStats): string {
  const ms = elapsed(stats);
  const time = ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  return `${n(stats.iterations, "step")} · ${
    n(stats.toolCalls, "tool call")
  } · ${stats.inputTokens} in / ${stats.outputTokens} out tokens · ${time}`;
}
