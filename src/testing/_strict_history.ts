/**
 * The history checks strict providers make before they look at a request, for the fake server's
 * strict mode: tool calls and results pair up, ids are unique, history arguments are JSON.
 *
 * @module
 */

/** Why a strict provider would refuse `body`, or `undefined` when it would accept it. */
export interface StrictRefusal {
  /** The provider-style message. */
  message: string;
  /** Where in the body, e.g. `messages.[3]`. */
  param: string;
}

/**
 * Checks a chat-completions body the way strict providers do (OpenAI's pairing rules, Anthropic's
 * unique `tool_use` ids, a JSON-object `arguments` that Anthropic-backed endpoints parse):
 *
 * - an assistant message's tool calls must each be answered by a `tool` message before the next
 *   assistant, user or system message (and before the end of the request);
 * - a `tool` message must answer a call of the assistant message before it, once;
 * - tool-call ids are non-empty and unique within the request;
 * - every history `arguments` is a string holding one JSON object.
 *
 * @param body the parsed request body
 * @returns the first refusal, or `undefined`
 */
export function strictHistoryRefusal(body: Record<string, unknown>): StrictRefusal | undefined {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const pending = new Map<string, number>();
  const seen = new Set<string>();
  const answered = new Set<string>();
  const unanswered = (at: number): StrictRefusal => ({
    message: `An assistant message with 'tool_calls' must be followed by tool messages ` +
      `responding to each 'tool_call_id'. The following tool_call_ids did not have response ` +
      `messages: ${[...pending.keys()].join(", ")}`,
    param: `messages.[${at}]`,
  });
  for (const [i, raw] of messages.entries()) {
    const message = (typeof raw === "object" && raw !== null ? raw : {}) as Record<string, unknown>;
    if (message.role === "tool") {
      const id = String(message.tool_call_id ?? "");
      if (!pending.has(id)) {
        return {
          message: answered.has(id)
            ? `Duplicate tool message: tool_call_id ${id} already has a response.`
            : `Invalid parameter: messages with role 'tool' must be a response to a preceding ` +
              `message with 'tool_calls' (tool_call_id ${id || "(none)"}).`,
          param: `messages.[${i}].tool_call_id`,
        };
      }
      pending.delete(id);
      answered.add(id);
      continue;
    }
    if (pending.size > 0) return unanswered(i);
    const calls = message.role === "assistant" && Array.isArray(message.tool_calls)
      ? message.tool_calls as Record<string, unknown>[]
      : [];
    for (const [j, call] of calls.entries()) {
      const where = `messages.[${i}].tool_calls.[${j}]`;
      const id = typeof call?.id === "string" ? call.id : "";
      if (id === "") return { message: `${where}.id must be a non-empty string.`, param: where };
      if (seen.has(id)) {
        return { message: `tool_use ids must be unique: ${id} is used twice.`, param: where };
      }
      const args = (call.function as Record<string, unknown> | undefined)?.arguments;
      if (!isJsonObjectText(args)) {
        return {
          message: `${where}.function.arguments must be a JSON object encoded as a string; got ` +
            `${JSON.stringify(args)?.slice(0, 80)}.`,
          param: `${where}.function.arguments`,
        };
      }
      seen.add(id);
      pending.set(id, i);
    }
  }
  return pending.size > 0 ? unanswered(messages.length) : undefined;
}

function isJsonObjectText(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
