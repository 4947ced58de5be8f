/**
 * The transcript as a provider receives it: history that strict providers accept, whatever the
 * journal holds.
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";
import { DEFAULT_QUIRKS, type ProviderQuirks } from "../config/provider_quirks.ts";

/**
 * Returns the messages to send, without changing `messages`:
 *
 * - every tool call's `arguments` is a JSON object: empty, whitespace-only, unparseable (a model's
 *   broken JSON, a reply cut at its output limit) or non-object arguments are sent as `"{}"`
 *   (strict providers answer HTTP 400 to a history `arguments` that is not JSON, and Anthropic's
 *   tool input must be an object); valid ones are sent verbatim. The journal keeps the original,
 *   and the tool result the model already got says what was wrong with it;
 * - `reasoning_content` of earlier turns is dropped unless `quirks.echoReasoning`;
 * - with `quirks.toolCallIds: "alnum9"`, ids that are not nine letters and digits are replaced
 *   by nine derived from them (the same in every request, calls and results alike).
 *
 * Source: issue 14, case 3 (whitespace arguments replayed in history), and the quirks in
 * docs/model_client.md.
 *
 * @param messages the transcript as prepared for this request
 * @param quirks the provider's quirks; unset fields keep {@linkcode DEFAULT_QUIRKS}
 * @returns new message objects (strings are shared)
 *
 * @example Broken arguments are sent as {}
 * ```ts
 * import { toWireMessages } from "./to_wire_messages.ts";
 * const [sent] = toWireMessages([{
 *   role: "assistant",
 *   content: null,
 *   tool_calls: [{ id: "c1", type: "function", function: { name: "glob", arguments: '{"a":' } }],
 * }]);
 * if (sent.role !== "assistant" || sent.tool_calls?.[0].function.arguments !== "{}") {
 *   throw new Error("not repaired");
 * }
 * ```
 */
export function toWireMessages(
  messages: readonly ChatMessage[],
  quirks: Partial<ProviderQuirks> = {},
): ChatMessage[] {
  const { echoReasoning, toolCallIds } = { ...DEFAULT_QUIRKS, ...quirks };
  const id = toolCallIds === "alnum9" ? alnum9 : (value: string) => value;
  return messages.map((message): ChatMessage => {
    switch (message.role) {
      case "system":
      case "user":
        return { ...message };
      case "tool":
        return { ...message, tool_call_id: id(message.tool_call_id) };
      case "assistant": {
        const { reasoning_content, tool_calls, ...rest } = message;
        return {
          ...rest,
          ...(tool_calls
            ? {
              tool_calls: tool_calls.map((call) => ({
                ...call,
                id: id(call.id),
                function: { ...call.function, arguments: objectArguments(call.function.arguments) },
              })),
            }
            : {}),
          ...(echoReasoning && reasoning_content !== undefined ? { reasoning_content } : {}),
        };
      }
      default: {
        const unreachable: never = message;
        throw new TypeError(`Unknown message role: ${JSON.stringify(unreachable)}`);
      }
    }
  });
}

/** `text` when it is one JSON object, else `"{}"`. */
function objectArguments(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? text : "{}";
  } catch {
    return "{}";
  }
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `id` when it is nine letters and digits, else nine derived from it (FNV-1a, 2 × 32 bits). */
function alnum9(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ id.length;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (a >>> 16), 0x5bd1e995) >>> 0;
  }
  let n = BigInt(a) * 0x1_0000_0000n + BigInt(b);
  let out = "";
  for (let i = 0; i < 9; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return out;
}
