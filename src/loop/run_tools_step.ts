/**
 * The `run_tools` step: run the tool calls of one assistant message, at most `maxToolParallel`
 * at once, journal each result as it completes, and append the results to the transcript in
 * call order with matching ids (odek-go §3.2).
 *
 * @module
 */
import type { AssistantMessage, ToolCall, ToolMessage } from "../_util/chat_message.ts";
import { jsonDepth, MAX_ARGUMENT_DEPTH } from "../_util/json_depth.ts";
import type { ToolResult } from "../broker/tool_broker.ts";
import { endPhase, startPhase } from "../_util/step_phase.ts";
import { fixedVerdict } from "../danger/fixed_verdict.ts";
import { callCanWrite } from "./call_can_write.ts";
import { gateToolCalls } from "./gate_tool_calls.ts";
import { type PreparedCall, prepareToolCall } from "./prepare_tool_call.ts";
import { runCoreTool } from "./run_core_tool.ts";
import type { RunContext } from "./run_context.ts";
import { toolResultContent } from "./tool_result_content.ts";
import { providedRule } from "./tool_set.ts";
import type { ProvidedCallContext } from "./tool_provider.ts";
import type { StallEntry } from "./stall_detector.ts";
import { previewHead, previewTail, resultLines } from "./result_preview.ts";

/** Options for {@linkcode runToolsStep}. */
export interface RunToolsStepOptions {
  /**
   * Only the first `runnable` calls run; the others get `refusal` as their result, without
   * running (a spent budget). @default every call runs
   */
  runnable?: number;
  /** The result of a call beyond `runnable`. */
  refusal?: ToolResult;
  /**
   * Results of calls that must not run, by position (a resumed call that may have run, or one
   * that was waiting for approval when the run stopped and is not asked again). @default none
   */
  answered?: readonly (ToolResult | undefined)[];
  /**
   * The reply ended at the model's output limit (`finish_reason: "length"`): a call whose
   * arguments are not valid JSON is refused as cut off, not only as invalid. @default false
   */
  outputCut?: boolean;
}

/**
 * Run every tool call of `message`. Tool failures are results, never thrown. While a call runs,
 * a `tool_running` heartbeat is emitted every `context.heartbeatMs`. Each call is one step of
 * `context.steps`, recorded (journaled) as it completes.
 *
 * Before a call runs, the journal records it as started (`recordToolStarted`), so a resume
 * knows what may have had effects (design §8.3).
 *
 * @returns when every result is journaled and in `context.messages`: each call with what makes
 *   its result the same as another's, for stall detection
 * @throws only when the journal cannot be written (the run must stop: nothing can be persisted)
 *
 * @example
 * ```ts ignore
 * await runToolsStep(context, assistantMessage);
 * ```
 */
export async function runToolsStep(
  context: RunContext,
  message: AssistantMessage,
  options: RunToolsStepOptions = {},
): Promise<StallEntry[]> {
  const stepping = startPhase();
  const calls = message.tool_calls ?? [];
  const results: (ToolMessage | undefined)[] = new Array(calls.length);
  // Filled as each call completes; a step a durable runner replays leaves a unique key.
  const keys: string[] = calls.map((call) => `unseen:${call.id}`);
  const digests = await Promise.all(calls.map((call) => sha256Hex(call.function.arguments)));
  const runnable = options.runnable ?? calls.length;
  const preparing = startPhase();
  const prepared: PreparedCall[] = await Promise.all(
    calls.map((call, index) => {
      const answered = options.answered?.[index];
      if (answered) return { refusal: answered };
      return index < runnable || !options.refusal
        ? prepareToolCall(call, context.tools, { outputCut: options.outputCut })
        : { refusal: options.refusal };
    }),
  );
  endPhase("prepare-calls", preparing);
  // One approval request per batch, before anything in it runs.
  const gating = startPhase();
  const gated = context.gate
    ? await gateToolCalls(context, context.gate, prepared)
    : prepared.map(ungated);
  endPhase("gate", gating);
  let next = 0;
  const iteration = context.stats.iterations;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index];
      // One step per call: its result is recorded (journaled) as soon as it completes.
      results[index] = await context.steps.run<ToolMessage>({
        info: {
          type: "tool_call",
          iteration,
          callId: call.id,
          name: call.function.name,
          writes: callCanWrite(gated[index]),
        },
        execute: async () => {
          const { content, key } = await runOne(context, call, digests[index], gated[index]);
          keys[index] = key;
          return { role: "tool", tool_call_id: call.id, content };
        },
        records: (message) => [message],
      });
    }
  };
  const workers = Array.from({ length: Math.min(context.maxToolParallel, calls.length) }, worker);
  const settled = await Promise.allSettled(workers);
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failure) throw failure.reason;
  for (const result of results) context.messages.push(result!);
  context.stats.toolCalls += calls.length;
  context.emit("session_saved", { message_count: context.messages.length });
  context.emit("iteration_completed", {
    input_tokens: context.stats.inputTokens,
    output_tokens: context.stats.outputTokens,
    tools_called: calls.length,
  });
  endPhase("run-tools-step", stepping);
  return calls.map((call, index) => ({ call, result: keys[index] }));
}

/**
 * Run one call: the transcript content of its result (neutralised, redacted, capped) and a
 * digest of the result for stall detection.
 */
async function runOne(
  context: RunContext,
  call: ToolCall,
  argsSha256: string,
  prepared: PreparedCall,
): Promise<{ content: string; key: string }> {
  const name = call.function.name;
  const argsText = context.redact(call.function.arguments || "{}");
  const argsBytes = new TextEncoder().encode(call.function.arguments).length;
  context.emit("tool_call_started", {
    call_id: call.id,
    name,
    args: parseOrRaw(argsText),
    args_sha256: argsSha256,
    args_bytes: argsBytes,
  }, { tool: name });
  const started = context.now();
  const source = ("tool" in prepared ? prepared.tool : context.tools.get(name))?.source;
  const core = source?.type === "builtin" && source.entry.category === "core";
  let result: ToolResult;
  if ("refusal" in prepared) {
    result = prepared.refusal;
  } else if (context.signal.aborted) {
    result = {
      ok: false,
      error: {
        kind: "interrupted",
        message: "The run was interrupted before this call started; it did not run.",
      },
    };
  } else {
    const heartbeat = setInterval(() => {
      context.emit("tool_running", {
        call_id: call.id,
        name,
        elapsed_ms: Math.round(context.now() - started),
      }, { tool: name });
    }, context.heartbeatMs);
    try {
      // On disk before the call can have an effect: a resume treats a started call as possibly
      // done.
      const journaling = startPhase();
      const recorded = Promise.resolve(context.journal.recordToolStarted?.(call.id))
        .finally(() => endPhase("journal:tool_started", journaling));
      const running = startPhase();
      const broker = context.broker;
      if (!core && source?.type !== "provider" && broker.runAfter) {
        // The broker admits the call and readies its sandbox while the record is written; the
        // call acts only once it is on disk (and never if it cannot be written).
        [result] = await Promise.all([
          broker.runAfter(prepared.invocation, recorded, context.signal),
          recorded,
        ]);
      } else {
        await recorded;
        result = core
          ? await runCoreTool(context, prepared.invocation)
          : source?.type === "provider"
          ? await source.provider.run(prepared.invocation, context.signal, providedContext(context))
          : await broker.run(prepared.invocation, context.signal);
      }
      endPhase("tool-run", running);
    } finally {
      clearInterval(heartbeat);
    }
  }
  context.plan.observe({
    callId: call.id,
    name,
    argsText: call.function.arguments,
    succeeded: result.ok,
  });
  const duration = Math.round(context.now() - started);
  const writing = startPhase();
  const written = toolResultContent(result, {
    tool: name,
    redact: context.redact,
    limits: context.toolOutput,
    trusted: core,
  });
  endPhase("result-content", writing);
  if (written.flagged.length > 0) {
    context.emit("content_flagged", { call_id: call.id, kinds: written.flagged }, { tool: name });
  }
  if (result.ok) {
    context.emit("tool_call_completed", {
      call_id: call.id,
      name,
      duration_ms: duration,
      result_bytes: new TextEncoder().encode(result.output).length,
      preview: previewHead(written.text),
      tail: previewTail(written.text),
      lines: resultLines(written.text).length,
    }, { tool: name });
  } else {
    context.emit("tool_call_failed", {
      call_id: call.id,
      name,
      duration_ms: duration,
      error_class: result.error.kind,
      message: written.text,
    }, { tool: name });
  }
  const same = result.ok
    ? `ok\u0000${result.stallKey ?? result.output}`
    : `${result.error.kind}\u0000${result.error.message}`;
  return { content: written.content, key: await sha256Hex(same) };
}

/**
 * A call in a run without a gate: a built-in tool runs with the broker's verdict without a gate;
 * a provided tool gets that verdict here, from its provider's rule and its class without a gate
 * (denied unless that class is contained).
 */
/** What a provider's call may use of its run (see `ProvidedCallContext`). */
function providedContext(context: RunContext): ProvidedCallContext {
  return {
    left: () => context.budgets?.left(context.stats) ?? {},
    charge: async (usage) => {
      context.stats.inputTokens += usage.inputTokens;
      context.stats.outputTokens += usage.outputTokens;
      if (usage.inputTokens > 0 || usage.outputTokens > 0) {
        await context.journal.recordUsage?.(usage);
      }
    },
    emit: (type, data) => context.emit(type, data),
  };
}

function ungated(prepared: PreparedCall): PreparedCall {
  if (!("tool" in prepared)) return prepared;
  const { invocation, tool } = prepared;
  const source = tool.source;
  if (source.type !== "provider") return prepared;
  const call = { name: invocation.name, args: invocation.args };
  const rule = providedRule(tool, call)!;
  const classWithoutGate = source.tool.classWithoutGate ?? "unknown";
  const verdict = fixedVerdict(call, { rule, classWithoutGate });
  return verdict.decision === "deny"
    ? { refusal: { ok: false, error: { kind: "denied", message: `Not run: ${verdict.reason}` } } }
    : { tool, invocation: { ...invocation, verdict } };
}

function parseOrRaw(text: string): unknown {
  // Too deep to walk (redaction, JSON sinks) safely: the event keeps the text.
  if (jsonDepth(text) > MAX_ARGUMENT_DEPTH) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
