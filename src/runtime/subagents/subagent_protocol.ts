/**
 * What a sub-agent's loop process (`odek subagent`) and its parent say to each other over the
 * child's stdio: one JSON object a line, validated with zod at both ends. The child has no hands
 * and no key: it asks its parent for every model turn (`model`) and tool call (`tool`), and hands
 * it every journal record (`append`, `usage`), since the parent is the one writer of the child's
 * journal. The parent answers each request by its `id` (`reply`), and may `cancel` the run.
 *
 * @module
 */
import { z } from "zod";
import { type ChatMessage, ChatMessageSchema } from "../../_util/chat_message.ts";

/** The limits a sub-agent's run starts with (the task's, within the parent's). */
export interface SubagentLimits {
  maxIterations: number;
  maxToolParallel: number;
  maxRuntimeMs?: number;
  maxToolCalls?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
}

/** Parent → child, first line: what to run. */
export interface SubagentStart {
  type: "start";
  sessionId: string;
  runId: string;
  /** The system prompt and the parent's message, as journaled. */
  messages: ChatMessage[];
  /** The built-in tools it is offered (the parent decides; nothing else is served). */
  tools: string[];
  limits: SubagentLimits;
}

const LimitsSchema: z.ZodType<SubagentLimits> = z.strictObject({
  maxIterations: z.number().int().min(1).max(1000),
  maxToolParallel: z.number().int().min(1).max(64),
  maxRuntimeMs: z.number().int().min(0).max(2_147_483_647).optional(),
  maxToolCalls: z.number().int().min(0).optional(),
  maxInputTokens: z.number().int().min(0).optional(),
  maxOutputTokens: z.number().int().min(0).optional(),
});

/** A fault as it crosses the pipe. */
export interface WireError {
  code: string;
  message: string;
}

const WireErrorSchema: z.ZodType<WireError> = z.strictObject({
  code: z.string().max(64),
  message: z.string().max(65_536),
});

/** Parent → child. */
export type ParentMessage =
  | SubagentStart
  | { type: "reply"; id: number; ok: true; value: unknown }
  | { type: "reply"; id: number; ok: false; error: WireError }
  | { type: "cancel"; reason: string };

/** Zod schema of a {@linkcode ParentMessage}. */
export const ParentMessageSchema: z.ZodType<ParentMessage> = z.union([
  z.strictObject({
    type: z.literal("start"),
    sessionId: z.string().min(1),
    runId: z.string().min(1),
    messages: z.array(ChatMessageSchema),
    tools: z.array(z.string()),
    limits: LimitsSchema,
  }),
  z.strictObject({
    type: z.literal("reply"),
    id: z.number().int(),
    ok: z.literal(true),
    value: z.unknown(),
  }),
  z.strictObject({
    type: z.literal("reply"),
    id: z.number().int(),
    ok: z.literal(false),
    error: WireErrorSchema,
  }),
  z.strictObject({ type: z.literal("cancel"), reason: z.string().max(1000) }),
]);

/** The statuses a sub-agent's task ends with (a run outcome's type). */
export type SubagentStatus = "completed" | "budget_exceeded" | "stalled" | "interrupted" | "failed";

/** How the child's run ended, as it reports it. */
export interface SubagentDone {
  type: "done";
  status: SubagentStatus;
  /** The final answer, or the partial summary / last text for the other outcomes. */
  summary: string;
  iterations: number;
  toolCalls: number;
  error?: WireError;
}

/** What the child asks of its parent. */
export type ChildRequest =
  | { type: "request"; id: number; method: "model"; params: ModelParams }
  | { type: "request"; id: number; method: "tool"; params: ToolParams }
  | { type: "request"; id: number; method: "append"; params: { message: ChatMessage } }
  | {
    type: "request";
    id: number;
    method: "usage";
    params: { inputTokens: number; outputTokens: number };
  };

/** A model turn the child asks for (the parent adds the tools, the key and the budgets). */
export interface ModelParams {
  messages: ChatMessage[];
  iteration: number;
  maxTokens?: number;
}

/** A tool call the child asks the parent to classify, approve and run. */
export interface ToolParams {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** Child → parent. */
export type ChildMessage = ChildRequest | SubagentDone;

const MAX_ID = 2 ** 31;

/** Zod schema of a {@linkcode ChildMessage}. */
export const ChildMessageSchema: z.ZodType<ChildMessage> = z.union([
  z.strictObject({
    type: z.literal("request"),
    id: z.number().int().min(0).max(MAX_ID),
    method: z.literal("model"),
    params: z.strictObject({
      messages: z.array(ChatMessageSchema).min(1),
      iteration: z.number().int().min(0),
      maxTokens: z.number().int().min(1).optional(),
    }),
  }),
  z.strictObject({
    type: z.literal("request"),
    id: z.number().int().min(0).max(MAX_ID),
    method: z.literal("tool"),
    params: z.strictObject({
      id: z.string().min(1).max(256),
      name: z.string().min(1).max(64),
      args: z.record(z.string(), z.unknown()),
    }),
  }),
  z.strictObject({
    type: z.literal("request"),
    id: z.number().int().min(0).max(MAX_ID),
    method: z.literal("append"),
    params: z.strictObject({ message: ChatMessageSchema }),
  }),
  z.strictObject({
    type: z.literal("request"),
    id: z.number().int().min(0).max(MAX_ID),
    method: z.literal("usage"),
    params: z.strictObject({
      inputTokens: z.number().int().min(0),
      outputTokens: z.number().int().min(0),
    }),
  }),
  z.strictObject({
    type: z.literal("done"),
    status: z.enum(["completed", "budget_exceeded", "stalled", "interrupted", "failed"]),
    summary: z.string(),
    iterations: z.number().int().min(0),
    toolCalls: z.number().int().min(0),
    error: WireErrorSchema.optional(),
  }),
]);

/** Parse one line with `schema`; `undefined` for a line that is not JSON or does not fit. */
export function parseLine<T>(schema: z.ZodType<T>, line: string): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
