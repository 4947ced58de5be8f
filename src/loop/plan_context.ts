/**
 * Pure planning of what one request sends: which turn groups are left out, which old tool
 * results become markers, and the estimate of the result. Everything is O(transcript length);
 * per-message counts are cached by {@linkcode estimateMessageTokens}.
 *
 * @module
 */
import type { ChatMessage, ToolMessage } from "../_util/chat_message.ts";
import { estimateMessageTokens, utf8Length } from "./estimate_tokens.ts";
import type { TranscriptLayout, TurnGroup } from "./turn_groups.ts";

/** Tool results at most this many UTF-8 bytes are never replaced by a marker. */
export const MARKER_MIN_BYTES = 1024;

/** How far trimming has gone; both only move forward during a run. */
export interface ContextState {
  /** Unprotected groups that start before this transcript index are left out (or digested). */
  coveredUntil: number;
  /** Large tool results before this index become markers (except the newest ones kept whole). */
  markUntil: number;
}

/** The fixed parts of a plan. */
export interface PlanInput {
  messages: readonly ChatMessage[];
  layout: TranscriptLayout;
  /** The newest tool results that stay whole. */
  keepRecentToolResults: number;
  /** Raw tokens of everything that is not a transcript message: tool schemas and the digest. */
  fixedTokens: number;
  /** Survival: only the newest group's results stay whole; cut them to this many bytes each. */
  survivalCutBytes?: number;
}

/** What a request sends, in transcript order (the digest is inserted by the caller). */
export interface BuiltRequest {
  /** The head messages. */
  head: ChatMessage[];
  /** The kept groups' messages, markers substituted. */
  body: ChatMessage[];
  /** Raw estimate of head + body + fixed tokens. */
  tokens: number;
  /** Transcript indices of the tool results sent as markers (or cut, in survival). */
  markers: Set<number>;
}

const markerCache = new WeakMap<ToolMessage, ToolMessage>();
const bytesCache = new WeakMap<ToolMessage, number>();

/** UTF-8 bytes of a tool result's content, cached per message object. */
function contentBytes(message: ToolMessage): number {
  let bytes = bytesCache.get(message);
  if (bytes === undefined) {
    bytes = utf8Length(message.content);
    bytesCache.set(message, bytes);
  }
  return bytes;
}

/**
 * The marker that replaces an old large tool result: says what was dropped and how to get it.
 *
 * @example
 * ```ts
 * import { toolResultMarker } from "./plan_context.ts";
 * const m = toolResultMarker({ role: "tool", tool_call_id: "c1", content: "x".repeat(5000) }, "shell");
 * if (!m.content.includes("5000 bytes") || m.tool_call_id !== "c1") throw new Error(m.content);
 * ```
 */
export function toolResultMarker(message: ToolMessage, toolName: string): ToolMessage {
  const cached = markerCache.get(message);
  if (cached) return cached;
  const marker: ToolMessage = {
    role: "tool",
    tool_call_id: message.tool_call_id,
    content: `[odek: the result of this ${toolName} call (${
      contentBytes(message)
    } bytes) was dropped from the context to save space. Run the tool again if you need it.]`,
  };
  markerCache.set(message, marker);
  return marker;
}

/**
 * Build the request for `state`: the head, every protected group, every group from
 * `coveredUntil` on, with old large tool results as markers.
 */
export function buildRequest(input: PlanInput, state: ContextState): BuiltRequest {
  const { messages, layout } = input;
  const head = messages.slice(0, layout.headEnd);
  let tokens = input.fixedTokens;
  for (const message of head) tokens += estimateMessageTokens(message);
  const whole = keptWhole(input);
  const body: ChatMessage[] = [];
  const markers = new Set<number>();
  for (const group of layout.groups) {
    if (!group.protected && group.start < state.coveredUntil) continue;
    for (const index of group.indices) {
      const message = sendForm(input, state, whole, index, group.start);
      if (message !== messages[index]) markers.add(index);
      tokens += estimateMessageTokens(message);
      body.push(message);
    }
  }
  return { head, body, tokens, markers };
}

/**
 * Plan a proactive trim down to `limit` raw tokens: first every old large tool result becomes a
 * marker, then the oldest unprotected groups are left out whole (never the newest group).
 *
 * @returns the new state and the groups this plan leaves out that `state` still sent
 */
export function planTrim(
  input: PlanInput,
  state: ContextState,
  limit: number,
): { state: ContextState; dropped: TurnGroup[] } {
  const next: ContextState = {
    coveredUntil: state.coveredUntil,
    markUntil: input.messages.length,
  };
  let tokens = buildRequest(input, next).tokens;
  const dropped: TurnGroup[] = [];
  const whole = keptWhole(input);
  const groups = input.layout.groups;
  for (let g = 0; g < groups.length - 1 && tokens > limit; g++) {
    const group = groups[g];
    if (group.protected || group.start < state.coveredUntil) continue;
    for (const index of group.indices) {
      tokens -= estimateMessageTokens(sendForm(input, next, whole, index, group.start));
    }
    next.coveredUntil = group.start + 1;
    dropped.push(group);
  }
  return { state: next, dropped };
}

/**
 * Indices of tool results that are never markers: the newest group's and protected groups'
 * results, and (except in survival) the `keepRecentToolResults` newest results.
 */
function keptWhole(input: PlanInput): Set<number> {
  const whole = new Set<number>();
  const { messages, layout } = input;
  for (const group of layout.groups) {
    if (group.protected) { for (const index of group.indices) whole.add(index); }
  }
  for (const index of layout.groups.at(-1)?.indices ?? []) whole.add(index);
  if (input.survivalCutBytes !== undefined) return whole;
  let kept = 0;
  for (let i = messages.length - 1; i >= 0 && kept < input.keepRecentToolResults; i--) {
    if (messages[i].role === "tool") {
      whole.add(i);
      kept++;
    }
  }
  return whole;
}

function sendForm(
  input: PlanInput,
  state: ContextState,
  whole: Set<number>,
  index: number,
  groupStart: number,
): ChatMessage {
  const message = input.messages[index];
  if (message.role !== "tool") return message;
  if (whole.has(index)) {
    const cut = input.survivalCutBytes;
    return cut !== undefined && contentBytes(message) > cut ? cutResult(message, cut) : message;
  }
  if (index >= state.markUntil || contentBytes(message) <= MARKER_MIN_BYTES) return message;
  const cached = markerCache.get(message);
  if (cached) return cached;
  const owner = input.messages[groupStart];
  const call = owner.role === "assistant"
    ? owner.tool_calls?.find((c) => c.id === message.tool_call_id)
    : undefined;
  return toolResultMarker(message, call?.function.name ?? "tool");
}

/**
 * A result cut to its first `bytes` (about) with a note; survival mode only. The closing line of
 * an untrusted-output boundary (and what follows it) is kept, so the cut text stays fenced.
 */
function cutResult(message: ToolMessage, bytes: number): ToolMessage {
  const total = utf8Length(message.content);
  const closing = /\n<\/untrusted_content_[0-9a-f]{16}>(\n[^]*)?$/.exec(message.content);
  const tail = closing ? closing[0] : "";
  const body = closing ? message.content.slice(0, closing.index) : message.content;
  const room = Math.max(0, bytes - utf8Length(tail));
  let text = body.slice(0, room);
  while (utf8Length(text) > room) text = text.slice(0, Math.floor(text.length * 0.9));
  return {
    ...message,
    content: `${text}${tail}\n[odek: cut to fit the context window: ${
      total - utf8Length(text) - utf8Length(tail)
    } of ${total} bytes dropped. Run the tool again with a narrower request if you need more.]`,
  };
}
