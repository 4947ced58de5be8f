/**
 * The transcript's message shapes, exactly as the OpenAI chat-completions wire format has them
 * (https://platform.openai.com/docs/api-reference/chat/create), with zod schemas for the edges
 * (session files, cassettes, HTTP bodies).
 *
 * @module
 */
import { z } from "zod";

/** One tool call requested by the model. `arguments` is the raw JSON text the model produced. */
export const ToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
/** One tool call requested by the model. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** A transcript message: system, user, assistant (optionally with tool calls) or tool result. */
export const ChatMessageSchema = z.discriminatedUnion("role", [
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
 * A transcript message.
 *
 * @example An assistant message with one tool call
 * ```ts
 * import { ChatMessageSchema, type ChatMessage } from "./chat_message.ts";
 * const m: ChatMessage = {
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id: "c1", type: "function", function: { name: "shell", arguments: "{}" } }],
 * };
 * ChatMessageSchema.parse(m);
 * ```
 */
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** The assistant variant of {@linkcode ChatMessage}. */
export type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;
/** The tool-result variant of {@linkcode ChatMessage}. */
export type ToolMessage = Extract<ChatMessage, { role: "tool" }>;
