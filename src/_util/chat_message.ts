/**
 * The transcript's message shapes, exactly as the OpenAI chat-completions wire format has them
 * (https://platform.openai.com/docs/api-reference/chat/create), with zod schemas for the edges
 * (session files, cassettes, HTTP bodies).
 *
 * @module
 */
import { z } from "zod";

/**
 * One tool call requested by the model (the wire format's `tool_calls[]` entry).
 *
 * @example A shell call
 * ```ts
 * import type { ToolCall } from "./chat_message.ts";
 * const call: ToolCall = {
 *   id: "call_1",
 *   type: "function",
 *   function: { name: "shell", arguments: JSON.stringify({ command: "ls" }) },
 * };
 * if (JSON.parse(call.function.arguments).command !== "ls") throw new Error("arguments");
 * ```
 */
export interface ToolCall {
  /** The call's id, unique in the session; the tool result names it. */
  id: string;
  /** Always `function`. */
  type: "function";
  /** What is called, with what. */
  function: {
    /** The tool's name. */
    name: string;
    /** The raw JSON text of the arguments, as the model produced it (possibly invalid). */
    arguments: string;
  };
}

/** Zod schema of a {@linkcode ToolCall}. */
export const ToolCallSchema: z.ZodType<ToolCall> = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/**
 * A transcript message: system, user, assistant (optionally with tool calls and the provider's
 * reasoning text) or tool result, as the OpenAI chat-completions wire format has them.
 *
 * @example An assistant message with one tool call, and its result
 * ```ts
 * import type { ChatMessage } from "./chat_message.ts";
 * const transcript: ChatMessage[] = [
 *   { role: "user", content: "List the files." },
 *   {
 *     role: "assistant",
 *     content: null,
 *     tool_calls: [{ id: "c1", type: "function", function: { name: "glob", arguments: '{"pattern":"*"}' } }],
 *   },
 *   { role: "tool", tool_call_id: "c1", content: "README.md" },
 * ];
 * if (transcript[2].role !== "tool") throw new Error("a tool result");
 * ```
 */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
    role: "assistant";
    /** The text, or `null` when the reply is only tool calls. */
    content: string | null;
    tool_calls?: ToolCall[];
    /** The provider's reasoning text, where it sends one (DeepSeek's `reasoning_content`). */
    reasoning_content?: string;
  }
  | { role: "tool"; tool_call_id: string; content: string };

/** Zod schema of a {@linkcode ChatMessage}, for the edges (session files, cassettes, bodies). */
export const ChatMessageSchema: z.ZodType<ChatMessage> = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.string() }),
  z.object({
    role: z.literal("assistant"),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).optional(),
    reasoning_content: z.string().optional(),
  }),
  z.object({ role: z.literal("tool"), tool_call_id: z.string().min(1), content: z.string() }),
]);

/**
 * The assistant variant of {@linkcode ChatMessage}.
 *
 * @example A final answer
 * ```ts
 * import type { AssistantMessage } from "./chat_message.ts";
 * const answer: AssistantMessage = { role: "assistant", content: "Done." };
 * if (answer.tool_calls !== undefined) throw new Error("a final answer has no tool calls");
 * ```
 */
export type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;
/** The tool-result variant of {@linkcode ChatMessage}. */
export type ToolMessage = Extract<ChatMessage, { role: "tool" }>;
