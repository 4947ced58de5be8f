/**
 * odek's own token estimate of what it sends: about 4 UTF-8 bytes per token (odek-go §3.4 counts
 * `ceil(len/4)` per string), counting message text, reasoning text, tool-call ids, names and
 * arguments, and the tool schemas. The estimate is calibrated against the provider's reported
 * usage by the context manager (see docs/context.md); this file is the raw count.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import type { ToolSpec } from "../llm/model.ts";

/** Tokens added per message for its role and framing. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens added per tool call for its framing. */
export const TOOL_CALL_OVERHEAD_TOKENS = 8;

// Messages are never mutated once in the transcript, so a count per object stays true.
const messageCache = new WeakMap<ChatMessage, number>();
const specCache = new WeakMap<readonly ToolSpec[], { length: number; tokens: number }>();

/**
 * The UTF-8 length of `text` in bytes, without encoding it.
 *
 * @example
 * ```ts
 * import { utf8Length } from "./estimate_tokens.ts";
 * if (utf8Length("aé中😀") !== 1 + 2 + 3 + 4) throw new Error("wrong length");
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff) i++, bytes += 2; // a pair: 4 bytes for 2 units
    else bytes += 2;
  }
  return bytes;
}

/**
 * Estimated prompt tokens of one message: `ceil(bytes / 4)` of its content, `reasoning_content`,
 * `tool_call_id`, and each tool call's id, name and arguments, plus
 * {@linkcode MESSAGE_OVERHEAD_TOKENS} and {@linkcode TOOL_CALL_OVERHEAD_TOKENS} per call.
 * Cached per message object.
 *
 * @param message a transcript message (never mutated afterwards)
 * @returns tokens (a whole number ≥ 4)
 *
 * @example
 * ```ts
 * import { estimateMessageTokens } from "./estimate_tokens.ts";
 * const tokens = estimateMessageTokens({ role: "user", content: "x".repeat(400) });
 * if (tokens !== 104) throw new Error(String(tokens));
 * ```
 */
export function estimateMessageTokens(message: ChatMessage): number {
  const cached = messageCache.get(message);
  if (cached !== undefined) return cached;
  let bytes = 0;
  let overhead = MESSAGE_OVERHEAD_TOKENS;
  switch (message.role) {
    case "system":
    case "user":
      bytes = utf8Length(message.content);
      break;
    case "tool":
      bytes = utf8Length(message.content) + message.tool_call_id.length;
      break;
    case "assistant":
      bytes = utf8Length(message.content ?? "") + utf8Length(message.reasoning_content ?? "");
      for (const call of message.tool_calls ?? []) {
        bytes += call.id.length + utf8Length(call.function.name) +
          utf8Length(call.function.arguments);
        overhead += TOOL_CALL_OVERHEAD_TOKENS;
      }
      break;
    default: {
      const unreachable: never = message;
      throw new TypeError(`Unknown message: ${JSON.stringify(unreachable)}`);
    }
  }
  const tokens = Math.ceil(bytes / 4) + overhead;
  messageCache.set(message, tokens);
  return tokens;
}

/**
 * Estimated prompt tokens of the tool schemas: `ceil(bytes / 4)` of their JSON (names,
 * descriptions and parameter schemas). Cached per array object (recounted when its length changes).
 *
 * @param specs the `tools` of a request
 * @returns tokens (0 for no tools)
 *
 * @example
 * ```ts
 * import { estimateToolSpecTokens } from "./estimate_tokens.ts";
 * const specs = [{ type: "function" as const, function: { name: "glob", description: "find", parameters: {} } }];
 * if (estimateToolSpecTokens(specs) < 10) throw new Error("schemas not counted");
 * ```
 */
export function estimateToolSpecTokens(specs: readonly ToolSpec[]): number {
  if (specs.length === 0) return 0;
  const cached = specCache.get(specs);
  if (cached?.length === specs.length) return cached.tokens;
  const tokens = Math.ceil(utf8Length(JSON.stringify(specs)) / 4);
  specCache.set(specs, { length: specs.length, tokens });
  return tokens;
}
