/**
 * The sub-agent's side (`odek subagent`): the loop of `src/loop/run_agent.ts` in a Deno process
 * with no permission at all, whose model, broker and journal are its parent, over its stdio
 * (`subagent_protocol.ts`). It holds no key, starts nothing and writes no file: a turn, a tool
 * call and a journal record are each a request the parent answers. Its stdin closing (the
 * parent gone, even killed with SIGKILL) interrupts the run at once.
 *
 * @module
 */
import { z } from "zod";
import { type AssistantMessage, ChatMessageSchema } from "../../_util/chat_message.ts";
import { OdekError, type OdekErrorCode } from "../../_util/odek_error.ts";
import type { ToolBroker, ToolInvocation, ToolResult } from "../../broker/tool_broker.ts";
import type { Model, ModelRequest, ModelResponse } from "../../llm/model.ts";
import { runAgent, type RunOutcome } from "../../loop/run_agent.ts";
import type { TranscriptJournal } from "../../loop/run_context.ts";
import { ToolSet } from "../../loop/tool_set.ts";
import type { LineTransport } from "../../../tools/_catalogue/line_transport.ts";
import { TOOL_CATALOGUE } from "../../../tools/_catalogue/mod.ts";
import {
  type ChildRequest,
  type ParentMessage,
  ParentMessageSchema,
  parseLine,
  type SubagentDone,
  type SubagentStart,
} from "./subagent_protocol.ts";

const ResponseSchema: z.ZodType<ModelResponse> = z.object({
  message: ChatMessageSchema.refine((m) => m.role === "assistant") as unknown as z.ZodType<
    AssistantMessage
  >,
  finishReason: z.string(),
  usage: z.object({ inputTokens: z.number(), outputTokens: z.number() }),
});

const ResultSchema: z.ZodType<ToolResult> = z.union([
  z.object({ ok: z.literal(true), output: z.string(), stallKey: z.string().optional() }),
  z.object({
    ok: z.literal(false),
    error: z.object({ kind: z.string(), message: z.string() }),
  }) as unknown as z.ZodType<ToolResult>,
]);

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * Run one sub-agent task over `transport`: wait for `start`, run the loop, and send `done`.
 *
 * @param transport the parent's end of the child's stdio
 * @returns what was sent as `done` (the caller maps its status to an exit code)
 *
 * @example Over an in-memory pair, with the parent scripted by hand
 * ```ts ignore
 * const [parent, child] = inMemoryTransportPair();
 * const done = runSubagentChild(child);
 * ```
 */
export async function runSubagentChild(transport: LineTransport): Promise<SubagentDone> {
  const pending = new Map<number, Pending>();
  const stop = new AbortController();
  let nextId = 0;
  let closed = false;
  let startResolve: (start: SubagentStart) => void = () => {};
  const started = new Promise<SubagentStart | undefined>((resolve) => {
    startResolve = resolve;
    stop.signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  const gone = new OdekError("INTERRUPTED", "the parent closed the sub-agent's channel");
  const reading = (async () => {
    for await (const line of transport.receive()) {
      const message: ParentMessage | undefined = parseLine(ParentMessageSchema, line);
      if (!message) continue;
      if (message.type === "start") startResolve(message);
      else if (message.type === "cancel") stop.abort(new OdekError("INTERRUPTED", message.reason));
      else {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (!waiter) continue;
        if (message.ok) waiter.resolve(message.value);
        else waiter.reject(new OdekError(wireCode(message.error.code), message.error.message));
      }
    }
  })().catch(() => {}).finally(() => {
    // The parent is gone (EOF): nothing can be answered or journaled any more.
    closed = true;
    if (!stop.signal.aborted) stop.abort(gone);
    for (const waiter of pending.values()) waiter.reject(gone);
    pending.clear();
  });
  const ask = async <T>(
    method: ChildRequest["method"],
    params: unknown,
    schema?: z.ZodType<T>,
  ): Promise<T> => {
    if (closed) throw gone;
    const id = nextId++;
    const answer = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
    await transport.send(JSON.stringify({ type: "request", id, method, params }));
    const value = await answer;
    if (!schema) return value as T;
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new OdekError("MODEL_ERROR", `the parent answered ${method} with a malformed reply`);
    }
    return parsed.data;
  };
  const start = await started;
  if (!start) {
    await reading;
    return { type: "done", status: "interrupted", summary: "", iterations: 0, toolCalls: 0 };
  }
  const model: Model = {
    // A stopped run does not wait for the parent's answer (the parent aborts the turn too).
    complete: (request: ModelRequest) =>
      abortable(
        ask("model", {
          messages: request.messages,
          iteration: request.iteration,
          ...(request.maxTokens ? { maxTokens: request.maxTokens } : {}),
        }, ResponseSchema),
        request.signal,
      ),
  };
  const broker: ToolBroker = {
    run: async (invocation: ToolInvocation) => {
      try {
        return await ask("tool", {
          id: invocation.id,
          name: invocation.name,
          args: invocation.args,
        }, ResultSchema);
      } catch (error) {
        return {
          ok: false,
          error: {
            kind: "interrupted",
            message: error instanceof Error ? error.message : String(error),
          },
        };
      }
    },
    close: () => Promise.resolve(),
    [Symbol.asyncDispose]: () => Promise.resolve(),
  };
  // The last text the model wrote: an interrupted or stopped run's partial result.
  let lastText = "";
  const journal: TranscriptJournal = {
    append: (message) => {
      if (message.role === "assistant" && message.content) lastText = message.content;
      return ask("append", { message });
    },
    recordUsage: (usage) => ask("usage", usage),
  };
  const offered = new Set(start.tools);
  const tools = new ToolSet({ builtins: TOOL_CATALOGUE.filter((e) => offered.has(e.name)) });
  const { maxIterations, maxToolParallel, ...budgets } = start.limits;
  const outcome = await runAgent({
    model,
    broker,
    journal,
    messages: start.messages,
    tools,
    maxIterations,
    maxToolParallel,
    budgets,
    runId: start.runId,
    sessionId: start.sessionId,
    signal: stop.signal,
  });
  const done = doneOf(outcome, start, lastText);
  await transport.send(JSON.stringify(done)).catch(() => {});
  await transport.close();
  return done;
}

/** `promise`, or the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The parent's fault codes the loop branches on; any other is a model error. */
function wireCode(code: string): OdekErrorCode {
  const known: OdekErrorCode[] = ["BUDGET_EXCEEDED", "INTERRUPTED", "MODEL_UNREACHABLE"];
  return known.find((k) => k === code) ?? "MODEL_ERROR";
}

function doneOf(outcome: RunOutcome, start: SubagentStart, lastText: string): SubagentDone {
  const { stats } = outcome;
  const base = { type: "done" as const, iterations: stats.iterations, toolCalls: stats.toolCalls };
  switch (outcome.type) {
    case "completed":
      return { ...base, status: "completed", summary: outcome.text ?? "" };
    case "budget_exceeded":
      return {
        ...base,
        status: "budget_exceeded",
        summary: outcome.partialSummary ?? lastText,
        error: {
          code: "BUDGET_EXCEEDED",
          message:
            `the ${outcome.breach.limit_name} budget is spent (${outcome.breach.observed} of ${outcome.breach.limit})`,
        },
      };
    case "stalled":
      return {
        ...base,
        status: "stalled",
        summary: lastText,
        error: { code: "STALLED", message: "the same tool calls repeated after a hint" },
      };
    case "interrupted":
      return { ...base, status: "interrupted", summary: lastText };
    case "failed":
      // The parent refused a turn because its session's budget is spent: the task's budget too.
      if (outcome.error instanceof OdekError && outcome.error.code === "BUDGET_EXCEEDED") {
        return {
          ...base,
          status: "budget_exceeded",
          summary: lastText,
          error: { code: "BUDGET_EXCEEDED", message: outcome.error.message },
        };
      }
      return {
        ...base,
        status: "failed",
        summary: lastText,
        error: {
          code: outcome.error instanceof OdekError ? outcome.error.code : "MODEL_ERROR",
          message: outcome.error.message,
        },
      };
    default: {
      const unreachable: never = outcome;
      throw new TypeError(`Unknown outcome of ${start.sessionId}: ${JSON.stringify(unreachable)}`);
    }
  }
}
