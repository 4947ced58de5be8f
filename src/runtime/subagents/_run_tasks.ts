/**
 * One `delegate_tasks` call: its tasks under the concurrency cap, each with the trust level and
 * workspace access it may have (never above the parent's; a lowered one is said in an event and
 * its result), writers taking turns on the workspace, and one JSON result per task.
 *
 * @module
 */
import type { TrustLevel } from "../../config/trust_level.ts";
import type { Verdict } from "../../danger/verdict.ts";
import type { ProvidedCallContext } from "../../loop/tool_provider.ts";
import type { ToolSet } from "../../loop/tool_set.ts";
import type { ToolProviderHost } from "../tool_provider_source.ts";
import type { SubagentHostParts } from "./_subagent_host.ts";
import { runSubagentTask } from "./_run_subagent_task.ts";
import { subagentMessages, subagentSessionId } from "./subagent_sessions.ts";
import type { SubagentLimits, SubagentStatus } from "./subagent_protocol.ts";

/** One task as the model gave it (validated). */
export interface TaskArgs {
  goal: string;
  context?: string;
  trust_level?: TrustLevel;
  workspace_access?: "read" | "write";
  budgets?: {
    max_iterations?: number;
    max_tool_calls?: number;
    max_input_tokens?: number;
    max_output_tokens?: number;
    max_runtime_seconds?: number;
  };
}

/** A turn on the workspace for a writer (see `DelegateTasksProvider`). */
export interface WriteTurn {
  busy: boolean;
  ready: Promise<void>;
  release: () => void;
}

/** What a call's tasks run with. */
export interface RunTasksDeps {
  callId: string;
  host: ToolProviderHost;
  parts: SubagentHostParts;
  context: ProvidedCallContext | undefined;
  maxConcurrency: number;
  toolsFor: (access: "read" | "write") => ToolSet;
  takeWriteTurn: () => WriteTurn;
  classify?: (call: { name: string; args: Record<string, unknown> }) => Verdict | undefined;
}

/** The result the model gets for one task. */
export interface TaskResult {
  task_index: number;
  status: SubagentStatus;
  summary: string;
  artifact_id?: string;
  files_changed: string[];
  usage: { input_tokens: number; output_tokens: number; iterations: number; tool_calls: number };
  session_id: string;
  trust_level: TrustLevel;
  workspace_access: "read" | "write";
  notes?: string[];
  error?: string;
}

const ORDER: readonly TrustLevel[] = ["untrusted", "standard", "trusted"];
/** Iterations of a sub-agent's run unless its task says. */
const DEFAULT_ITERATIONS = 30;
const INLINE_CHARS = 2000;

/** Run the tasks of one call; never throws for a task's failure (it is that task's result). */
export async function runTasks(
  tasks: readonly TaskArgs[],
  deps: RunTasksDeps,
  signal: AbortSignal,
): Promise<TaskResult[]> {
  const results: TaskResult[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await runOne(tasks[index], index, tasks.length, deps, signal);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(deps.maxConcurrency, tasks.length) }, worker),
  );
  return results;
}

async function runOne(
  task: TaskArgs,
  index: number,
  count: number,
  deps: RunTasksDeps,
  signal: AbortSignal,
): Promise<TaskResult> {
  const { host, parts, callId } = deps;
  const emit = deps.context?.emit ?? (() => {});
  const notes: string[] = [];
  const requested = task.trust_level ?? "untrusted";
  const trust = ORDER.indexOf(requested) > ORDER.indexOf(host.trust) ? host.trust : requested;
  if (trust !== requested) {
    emit("subagent_trust_lowered", {
      call_id: callId,
      task_index: index,
      requested,
      granted: trust,
    });
    notes.push(`asked for trust level ${requested}; runs with ${trust}, its parent's`);
  }
  const access = task.workspace_access ?? "read";
  const sessionId = subagentSessionId(host.sessionId);
  const base = {
    task_index: index,
    session_id: sessionId,
    trust_level: trust,
    workspace_access: access,
    files_changed: [] as string[],
  };
  const turn = access === "write" ? deps.takeWriteTurn() : undefined;
  try {
    if (turn?.busy) {
      const reason = "another sub-agent is writing the workspace: this one waits for its turn";
      emit("subagent_waiting", { call_id: callId, task_index: index, reason });
      const started = performance.now();
      await Promise.race([turn.ready, aborted(signal)]);
      notes.push(
        `waited ${
          Math.round(performance.now() - started)
        } ms for another sub-agent writing the workspace`,
      );
    }
    if (signal.aborted) {
      return {
        ...base,
        status: "interrupted",
        summary: "",
        usage: zero(),
        notes,
        error: "not started: the parent run stopped",
      };
    }
    const session = await parts.store.create({
      id: sessionId,
      workspace: host.workspace,
      model: parts.modelName,
      baseUrl: parts.baseUrl,
      title: task.goal,
    });
    try {
      for (
        const message of subagentMessages({
          parentId: host.sessionId,
          index,
          count,
          workspace: host.workspace,
          access,
          trust,
          goal: task.goal,
          ...(task.context ? { context: task.context } : {}),
        })
      ) {
        await session.append(message);
      }
      emit("subagent_started", {
        call_id: callId,
        task_index: index,
        session_id: sessionId,
        trust_level: trust,
        workspace_access: access,
      });
      const run = await runSubagentTask({
        callId,
        index,
        count,
        goal: task.goal,
        trust,
        access,
        limits: limitsOf(task),
        session,
        tools: deps.toolsFor(access),
        label: `sub-agent ${index + 1} of ${count} (${JSON.stringify(task.goal.slice(0, 60))})`,
      }, {
        parts,
        broker: host.broker,
        gate: parts.gateFor(trust),
        context: deps.context,
        ...(deps.classify ? { classify: deps.classify } : {}),
      }, signal);
      const { done } = run;
      emit("subagent_completed", {
        call_id: callId,
        task_index: index,
        session_id: sessionId,
        status: done.status,
        input_tokens: run.inputTokens,
        output_tokens: run.outputTokens,
      });
      const long = done.summary.length > INLINE_CHARS;
      return {
        ...base,
        status: done.status,
        summary: long
          ? `${
            done.summary.slice(0, INLINE_CHARS)
          }… [${done.summary.length} characters: read all of it with artifact_read]`
          : done.summary,
        ...(long ? { artifact_id: sessionId } : {}),
        files_changed: run.filesChanged,
        usage: {
          input_tokens: run.inputTokens,
          output_tokens: run.outputTokens,
          iterations: done.iterations,
          tool_calls: done.toolCalls,
        },
        ...(notes.length > 0 ? { notes } : {}),
        ...(done.error ? { error: `${done.error.code}: ${done.error.message}` } : {}),
      };
    } finally {
      await session.close();
    }
  } catch (error) {
    return {
      ...base,
      status: "failed",
      summary: "",
      usage: zero(),
      ...(notes.length > 0 ? { notes } : {}),
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    turn?.release();
  }
}

function limitsOf(task: TaskArgs): SubagentLimits {
  const b = task.budgets ?? {};
  return {
    maxIterations: b.max_iterations ?? DEFAULT_ITERATIONS,
    maxToolParallel: 4,
    ...(b.max_runtime_seconds ? { maxRuntimeMs: b.max_runtime_seconds * 1000 } : {}),
    ...(b.max_tool_calls ? { maxToolCalls: b.max_tool_calls } : {}),
    ...(b.max_input_tokens ? { maxInputTokens: b.max_input_tokens } : {}),
    ...(b.max_output_tokens ? { maxOutputTokens: b.max_output_tokens } : {}),
  };
}

function zero(): TaskResult["usage"] {
  return { input_tokens: 0, output_tokens: 0, iterations: 0, tool_calls: 0 };
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
