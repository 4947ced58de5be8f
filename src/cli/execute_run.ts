/**
 * Runs the loop for `odek run` and `odek continue`: signal handling, rendering (terminal or
 * `--json`), the closing summary line, and the exit code.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { OdekError } from "../_util/odek_error.ts";
import { BUILTIN_TOOLS } from "../broker/builtin_tools.ts";
import { builtinToolSpecs } from "../loop/builtin_tool_specs.ts";
import type { ToolBroker } from "../broker/tool_broker.ts";
import type { Model } from "../llm/model.ts";
import { makeRunEvent, newRunId } from "../loop/make_run_event.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import { runAgent } from "../loop/run_agent.ts";
import type { RunEvent } from "../loop/run_event.ts";
import type { RunStats } from "../loop/run_stats.ts";
import type { OpenSession } from "../session/session_store.ts";
import type { CliIO } from "./cli_io.ts";
import { EXIT, exitCodeFor } from "./exit_code.ts";
import { TerminalRenderer } from "./terminal_renderer.ts";

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
  redact: ((text: string) => string) & { forms?: readonly string[] };
  resumed: boolean;
  /** Classifies and approves tool calls. */
  gate?: ToolGate;
}

/**
 * Run to the end and return the exit code (0 ok, 1 error, 4 budget, 130 SIGINT, 143 SIGTERM).
 * The session is closed (its lock released) and the broker's children stopped in every case.
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
  const emit = (event: RunEvent) => {
    if (options.json) io.stdout.write(`${JSON.stringify(event)}\n`);
    else renderer!.handle(event);
  };
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
      ...(options.gate ? { gate: options.gate } : {}),
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
      case "iteration_budget_exhausted":
        return fail(
          options,
          scope,
          outcome.stats,
          new OdekError(
            "BUDGET_EXCEEDED",
            `Stopped after ${outcome.stats.iterations} model turns (--max-iterations ${options.maxIterations}) without a final answer. The session is saved: continue it with odek continue ${id} --max-iterations <n>.`,
          ),
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
    await options.broker.close();
    await session.close();
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
    io.stderr.write(`odek: ${message}${hint ? ` ${hint}` : ""}\nodek: ${summary(stats)}\n`);
    return exitCodeFor(error);
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
  return `${stats.iterations} steps · ${stats.toolCalls} tool calls · ${stats.inputTokens} in / ${stats.outputTokens} out tokens · ${time}`;
}
