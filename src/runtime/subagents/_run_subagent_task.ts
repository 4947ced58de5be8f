/**
 * The parent's side of one sub-agent (docs/subagents.md): create its session, start its loop
 * process through the broker, and answer what it asks — each model turn relayed through the
 * host's model client (the key stays here) within the parent's budgets, each tool call
 * classified at the sub-agent's trust level and workspace access, approved by the parent's
 * approver with the sub-agent named, and run by the parent's broker in the parent's sandboxes;
 * each journal record written to the sub-agent's session (the parent is its one writer).
 *
 * @module
 */
import { join } from "node:path";
import type { ToolCall } from "../../_util/chat_message.ts";
import { OdekError } from "../../_util/odek_error.ts";
import type { ToolBroker, ToolResult } from "../../broker/tool_broker.ts";
import type { TrustLevel } from "../../config/trust_level.ts";
import type { Verdict } from "../../danger/verdict.ts";
import type { ToolGate } from "../../loop/gate_tool_calls.ts";
import { prepareToolCall } from "../../loop/prepare_tool_call.ts";
import type { ProvidedCallContext } from "../../loop/tool_provider.ts";
import type { ToolSet } from "../../loop/tool_set.ts";
import type { OpenSession } from "../../session/session_store.ts";
import { streamTransport } from "../../../tools/_catalogue/line_transport.ts";
import type { SubagentHostParts } from "./_subagent_host.ts";
import {
  type ChildMessage,
  ChildMessageSchema,
  type ChildRequest,
  parseLine,
  type SubagentDone,
  type SubagentLimits,
} from "./subagent_protocol.ts";

/** Classes a sub-agent with read-only workspace access is never granted, whatever its gate says. */
const WRITING = new Set(["local_write", "code_execution", "system_write", "destructive"]);

/** What one task runs with. */
export interface SubagentTaskSpec {
  callId: string;
  index: number;
  count: number;
  goal: string;
  trust: TrustLevel;
  access: "read" | "write";
  limits: SubagentLimits;
  /** The session, already holding its system prompt and the parent's message. */
  session: OpenSession;
  /** The tools it is offered (built in, filtered by its access). */
  tools: ToolSet;
  /** Names it in approval prompts. */
  label: string;
}

/** What the parent learned of one task's run. */
export interface SubagentTaskRun {
  done: SubagentDone;
  inputTokens: number;
  outputTokens: number;
  /** Workspace paths its successful `write_file` and `patch` calls named. */
  filesChanged: string[];
}

/** What a task runner needs of its host. */
export interface SubagentTaskDeps {
  parts: SubagentHostParts;
  broker: ToolBroker;
  /** The gate of the task's trust level. */
  gate: ToolGate;
  context: ProvidedCallContext | undefined;
  /** Test seam: the verdict instead of the gate's (containment tests force an allow). */
  classify?: (call: { name: string; args: Record<string, unknown> }) => Verdict | undefined;
}

/**
 * Run one task to its end. Never throws for the sub-agent's failures: a process that cannot
 * start, dies or talks nonsense ends the task `failed`, with the reason.
 */
export async function runSubagentTask(
  spec: SubagentTaskSpec,
  deps: SubagentTaskDeps,
  signal: AbortSignal,
): Promise<SubagentTaskRun> {
  const { parts, broker } = deps;
  const run: SubagentTaskRun = {
    done: failed("the sub-agent did not report how it ended"),
    inputTokens: 0,
    outputTokens: 0,
    filesChanged: [],
  };
  if (!broker.startSubagent) {
    run.done = failed("this session's broker cannot start sub-agents");
    return run;
  }
  const sessionId = spec.session.meta.id;
  let process;
  try {
    process = await broker.startSubagent({
      name: `sub-agent ${spec.index + 1}`,
      argv: [
        parts.denoPath,
        "run",
        "--no-prompt",
        "--no-remote",
        "--cached-only",
        "--v8-flags=--max-old-space-size=512",
        "--config",
        join(parts.installDir, "deno.json"),
        // `odek subagent`'s own entry: a child without --allow-read cannot load main.ts's lazy imports.
        join(parts.installDir, "src", "cli", "subagent_main.ts"),
        "--session",
        sessionId,
      ],
      env: { DENO_DIR: parts.denoDir, NO_COLOR: "1" },
      logFile: join(parts.logDir, `${sessionId}.log`),
    });
  } catch (error) {
    run.done = failed(
      `the sub-agent could not start: ${(error instanceof Error ? error.message : String(error))}`,
    );
    return run;
  }
  const transport = streamTransport(process.stdout, process.stdin);
  const stop = new AbortController();
  let killer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => {
    void transport.send(JSON.stringify({ type: "cancel", reason: "the parent run stopped" }))
      .catch(() => {});
    // A child that does not wind down in time is killed with everything it started.
    killer = setTimeout(() => void process.stop(200), 3_000);
  };
  signal.addEventListener("abort", onAbort, { once: true });
  // What it asked for stops with the parent's run, or when it is gone.
  const forward = () => stop.abort(signal.reason);
  signal.addEventListener("abort", forward, { once: true });
  if (signal.aborted) stop.abort(signal.reason);
  const serving: Promise<void>[] = [];
  let reported = false;
  try {
    await transport.send(JSON.stringify({
      type: "start",
      sessionId,
      runId: crypto.randomUUID().replaceAll("-", ""),
      messages: spec.session.messages,
      tools: spec.tools.names,
      limits: spec.limits,
    }));
    for await (const line of transport.receive()) {
      const message: ChildMessage | undefined = parseLine(ChildMessageSchema, line);
      if (!message) continue;
      if (message.type === "done") {
        run.done = message;
        reported = true;
        break;
      }
      serving.push(
        answer(message, spec, deps, run, stop.signal).then(
          (reply) => transport.send(JSON.stringify({ type: "reply", id: message.id, ...reply })),
        ).catch(() => {}),
      );
    }
  } catch (error) {
    run.done = failed(
      `the sub-agent's channel failed: ${(error instanceof Error ? error.message : String(error))}`,
    );
  } finally {
    signal.removeEventListener("abort", onAbort);
    signal.removeEventListener("abort", forward);
    clearTimeout(killer);
    stop.abort();
    await Promise.allSettled(serving);
    await transport.close().catch(() => {});
    await process.stop(500);
    if (!reported && run.done.error?.code === "TOOL_CHILD_FAILED" && !run.done.summary) {
      const code = await process.exited;
      run.done = signal.aborted ? { ...run.done, status: "interrupted", error: undefined } : failed(
        `the sub-agent exited (code ${code}) without reporting how it ended; its log: ${process.logFile}`,
      );
    }
  }
  return run;
}

type Reply = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string } };

async function answer(
  request: ChildRequest,
  spec: SubagentTaskSpec,
  deps: SubagentTaskDeps,
  run: SubagentTaskRun,
  signal: AbortSignal,
): Promise<Reply> {
  try {
    switch (request.method) {
      case "model":
        return { ok: true, value: await relayModel(request.params, spec, deps, run, signal) };
      case "tool":
        return { ok: true, value: await runTool(request.params, spec, deps, run, signal) };
      case "append":
        await spec.session.append(request.params.message);
        return { ok: true, value: null };
      case "usage":
        // The parent counted the turn when it relayed it; the child's journal records it too.
        await spec.session.recordUsage(request.params);
        return { ok: true, value: null };
      default: {
        const unreachable: never = request;
        throw new TypeError(`Unknown request: ${JSON.stringify(unreachable)}`);
      }
    }
  } catch (error) {
    // An abort rejects with the signal's reason, which may be any value (a string: "SIGINT").
    const code = error instanceof OdekError
      ? error.code
      : signal.aborted
      ? "INTERRUPTED"
      : "MODEL_ERROR";
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code, message: message.slice(0, 4000) } };
  }
}

async function relayModel(
  params: Extract<ChildRequest, { method: "model" }>["params"],
  spec: SubagentTaskSpec,
  deps: SubagentTaskDeps,
  run: SubagentTaskRun,
  signal: AbortSignal,
): Promise<unknown> {
  const left = deps.context?.left() ?? {};
  const spent = (["input_tokens", "output_tokens", "cost_usd"] as const).find((k) => left[k] === 0);
  if (spent) {
    throw new OdekError(
      "BUDGET_EXCEEDED",
      `the parent session's ${spent} budget is spent: the sub-agent cannot ask the model again`,
    );
  }
  // The parent decides what the sub-agent may call: its tools, never what the child lists.
  const response = await deps.parts.model.complete({
    messages: params.messages,
    tools: spec.tools.specs,
    iteration: params.iteration,
    ...(params.maxTokens ? { maxTokens: params.maxTokens } : {}),
    signal,
  });
  run.inputTokens += response.usage.inputTokens;
  run.outputTokens += response.usage.outputTokens;
  await deps.context?.charge(response.usage);
  return response;
}

async function runTool(
  params: Extract<ChildRequest, { method: "tool" }>["params"],
  spec: SubagentTaskSpec,
  deps: SubagentTaskDeps,
  run: SubagentTaskRun,
  signal: AbortSignal,
): Promise<ToolResult> {
  const call: ToolCall = {
    id: params.id,
    type: "function",
    function: { name: params.name, arguments: JSON.stringify(params.args) },
  };
  const prepared = await prepareToolCall(call, spec.tools);
  if ("refusal" in prepared) return prepared.refusal;
  const { invocation } = prepared;
  const subject = { name: invocation.name, args: invocation.args };
  await deps.gate.ready?.();
  const verdict = deps.classify?.(subject) ?? deps.gate.classify(subject);
  const writes = verdict.parts.filter((p) => WRITING.has(p.riskClass)).map((p) => p.riskClass);
  if (spec.access === "read" && writes.length > 0) {
    return denied(
      `Not run: this sub-agent has read-only access to the workspace and the call is ${
        [...new Set(writes)].join(", ")
      }`,
    );
  }
  if (verdict.decision === "deny") return denied(`Not run: ${verdict.reason}`);
  if (verdict.decision === "ask") {
    await spec.session.recordApprovalRequested([{ callId: invocation.id, verdict }]);
    const preview = await deps.gate.preview?.(subject).catch(() => undefined);
    const [answer] = await deps.gate.approver.decide({
      calls: [{
        callId: invocation.id,
        toolName: invocation.name,
        args: invocation.args,
        verdict,
        agent: spec.label,
        ...(typeof preview === "string"
          ? { preview }
          : preview
          ? { preview: preview.text, fullPreview: preview.full }
          : {}),
      }],
    }, signal);
    if (answer?.approved !== true) {
      const why = answer?.reason?.replace(/[.\s]+$/, "") ??
        "The operator did not approve this call";
      return denied(`${why}. It asked because ${verdict.reason}`);
    }
  }
  await spec.session.recordToolStarted(invocation.id);
  // Its own call ids may repeat the parent's or a sibling's: the broker sees them apart.
  const result = await deps.broker.run(
    { ...invocation, id: `sa${spec.index + 1}-${invocation.id}`, verdict },
    signal,
  );
  const path = invocation.args.path;
  if (result.ok && (invocation.name === "write_file" || invocation.name === "patch")) {
    if (typeof path === "string" && !run.filesChanged.includes(path)) run.filesChanged.push(path);
  }
  return result;
}

function denied(message: string): ToolResult {
  return { ok: false, error: { kind: "denied", message } };
}

function failed(message: string): SubagentDone {
  return {
    type: "done",
    status: "failed",
    summary: "",
    iterations: 0,
    toolCalls: 0,
    error: { code: "TOOL_CHILD_FAILED", message },
  };
}
