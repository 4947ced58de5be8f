/**
 * Load repair of tool calls a strict provider refuses (issue 14, cases 1 and 2): arguments that
 * are not one JSON object, and ids used twice in a session.
 *
 * @module
 */
import type { AssistantMessage, ChatMessage, ToolCall } from "../_util/chat_message.ts";

/**
 * One repaired call, named by where the journal holds it.
 *
 * @example A duplicate id sent with a fresh one
 * ```ts
 * import type { ToolCallRepair } from "./repair_tool_calls.ts";
 * const repair: ToolCallRepair = { message: 4, position: 0, id: "call_2~1", originalId: "call_2" };
 * if (repair.originalId === repair.id) throw new Error("same id");
 * ```
 */
export interface ToolCallRepair {
  /** 0-based index of the call's message among the journal's message records. */
  message: number;
  /** The call's index in that message's `tool_calls`. */
  position: number;
  /** The id the call is sent with from now on. */
  id: string;
  /** The id the journal holds, when it was a duplicate and `id` was minted instead. */
  originalId?: string;
  /** The arguments the journal holds, when they were not one JSON object (`{}` is sent). */
  originalArguments?: string;
}

/** What {@linkcode repairToolCalls} returns. */
export interface RepairToolCallsResult {
  /** The messages, aligned with the input by index: repaired ones are new objects. */
  messages: ChatMessage[];
  /** Every repair, in journal order: the recorded ones as recorded, then the new ones. */
  repairs: ToolCallRepair[];
  /** The repairs that `recorded` did not hold (to journal in a `session_repaired` record). */
  added: ToolCallRepair[];
}

/**
 * A fresh id for a call whose id is taken: `<id>-r2`, `<id>-r3`, … (letters, digits, `-` and `_`
 * stay the only characters, as Anthropic-backed endpoints require), the first not in `taken`.
 *
 * @example
 * ```ts
 * import { mintToolCallId } from "./repair_tool_calls.ts";
 * if (mintToolCallId("it1-call0", new Set(["it1-call0", "it1-call0-r2"])) !== "it1-call0-r3") {
 *   throw new Error("not the first free id");
 * }
 * ```
 */
export function mintToolCallId(id: string, taken: ReadonlySet<string>): string {
  for (let k = 2;; k++) {
    const candidate = `${id}-r${k}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * Whether `text` is one JSON object, the only `arguments` strict providers accept in history.
 *
 * @example
 * ```ts
 * import { isJsonObjectText } from "./repair_tool_calls.ts";
 * if (isJsonObjectText('{"a":1}{"b":2}') || !isJsonObjectText(' {"a":1} ')) throw new Error("wrong");
 * ```
 */
export function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/**
 * Make every tool call of a loaded transcript one a strict provider accepts, without touching the
 * journal: arguments that are not one JSON object (two calls merged into one, a cut reply, broken
 * JSON) become `"{}"`, and a call whose id an earlier call of the session (or of the same message)
 * already has gets a fresh one ({@linkcode mintToolCallId}, unique among every id of the
 * transcript), its results following it: a `tool` message answers the nearest earlier call with
 * its id, calls of one message in order. Repairs already recorded (by message and position) are
 * applied as recorded, so every load sends the same ids.
 *
 * Pure: the input is not modified.
 *
 * @param messages the journal's message records, in file order
 * @param recorded the repairs earlier loads journaled
 * @returns the repaired messages and the repairs
 *
 * @example Two turns that both used `it1-call0`, and merged arguments
 * ```ts
 * import { repairToolCalls } from "./repair_tool_calls.ts";
 * const call = (id: string, args: string) => ({ id, type: "function" as const, function: { name: "read_file", arguments: args } });
 * const { messages, added } = repairToolCalls([
 *   { role: "assistant", content: null, tool_calls: [call("it1-call0", '{"path":"a"}{"path":"b"}')] },
 *   { role: "tool", tool_call_id: "it1-call0", content: "x" },
 *   { role: "assistant", content: null, tool_calls: [call("it1-call0", '{"path":"c"}')] },
 *   { role: "tool", tool_call_id: "it1-call0", content: "y" },
 * ]);
 * const last = messages[3];
 * if (added.length !== 2 || last.role !== "tool" || last.tool_call_id !== "it1-call0-r2") {
 *   throw new Error(JSON.stringify(added));
 * }
 * ```
 */
export function repairToolCalls(
  messages: readonly ChatMessage[],
  recorded: readonly ToolCallRepair[] = [],
): RepairToolCallsResult {
  const byPlace = new Map(recorded.map((r) => [`${r.message}:${r.position}`, r]));
  const taken = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") { for (const c of message.tool_calls ?? []) taken.add(c.id); }
  }
  for (const r of recorded) taken.add(r.id);
  const seen = new Set<string>();
  // The ids the calls of the latest message with each journaled id are sent with, in call order.
  const owners = new Map<string, string[]>();
  const repairs: ToolCallRepair[] = [];
  const added: ToolCallRepair[] = [];
  const out = messages.map((message, index): ChatMessage => {
    if (message.role === "tool") {
      const queue = owners.get(message.tool_call_id);
      if (!queue) return message;
      const id = queue.length > 1 ? queue.shift()! : queue[0];
      return id === message.tool_call_id ? message : { ...message, tool_call_id: id };
    }
    if (message.role !== "assistant" || !message.tool_calls?.length) return message;
    const fresh = new Map<string, string[]>();
    let changed = false;
    const calls = message.tool_calls.map((call, position): ToolCall => {
      const known = byPlace.get(`${index}:${position}`);
      const repair = known ?? newRepair(call, index, position, seen, taken);
      const id = repair?.id ?? call.id;
      seen.add(id);
      fresh.set(call.id, [...(fresh.get(call.id) ?? []), id]);
      if (!repair) return call;
      repairs.push(repair);
      if (!known) added.push(repair);
      changed = true;
      return {
        ...call,
        id,
        function: {
          ...call.function,
          arguments: repair.originalArguments !== undefined ? "{}" : call.function.arguments,
        },
      };
    });
    for (const [original, ids] of fresh) owners.set(original, ids);
    return changed ? { ...message, tool_calls: calls } as AssistantMessage : message;
  });
  return { messages: out, repairs, added };
}

function newRepair(
  call: ToolCall,
  message: number,
  position: number,
  seen: Set<string>,
  taken: Set<string>,
): ToolCallRepair | undefined {
  const duplicate = seen.has(call.id);
  const badArguments = !isJsonObjectText(call.function.arguments);
  if (!duplicate && !badArguments) return undefined;
  const id = duplicate ? mintToolCallId(call.id, taken) : call.id;
  taken.add(id);
  return {
    message,
    position,
    id,
    ...(duplicate ? { originalId: call.id } : {}),
    ...(badArguments ? { originalArguments: call.function.arguments } : {}),
  };
}
