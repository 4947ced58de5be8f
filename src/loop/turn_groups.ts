/**
 * The transcript as the context manager sees it: a protected head, then turn groups. A group is
 * one non-tool message with, for an assistant message with tool calls, all of its results, so
 * dropping a group never separates a call from its results (odek-go §3.4).
 *
 * @module
 */
import type { ChatMessage } from "../_util/chat_message.ts";

/**
 * Marks messages that must never be trimmed wherever they are in the transcript (e.g. a plan
 * message). A group holding a marked message is protected as a whole.
 */
export type ProtectedMessagePredicate = (message: ChatMessage) => boolean;

/** One turn group: transcript indices in order (contiguous except for skipped orphans). */
export interface TurnGroup {
  /** Index of the group's first message. */
  start: number;
  /** The indices of its messages, first the leading message, then its tool results. */
  indices: number[];
  /** Never dropped: it holds a protected message or the newest user message. */
  protected: boolean;
}

/** The head and the groups of a transcript. */
export interface TranscriptLayout {
  /**
   * The head ends before this index: the leading system messages (system prompt, project
   * instructions) and the first user message (the task).
   */
  headEnd: number;
  /** The groups after the head, oldest first. */
  groups: TurnGroup[];
}

/**
 * Split a transcript into its protected head and turn groups.
 *
 * Protected: the head, the group of the newest user message (the current task of a continued
 * session), and every group with a message `isProtected` accepts. A tool result that answers no
 * call of its group's assistant message (an orphan; repair on resume removes those) belongs to no
 * group and is never sent.
 *
 * @param messages the whole transcript
 * @param isProtected marks extra protected messages @default none
 * @returns the layout; O(messages)
 *
 * @example A call and its results form one group
 * ```ts
 * import { splitTurnGroups } from "./turn_groups.ts";
 * const call = { id: "c1", type: "function" as const, function: { name: "shell", arguments: "{}" } };
 * const layout = splitTurnGroups([
 *   { role: "system", content: "sys" },
 *   { role: "user", content: "task" },
 *   { role: "assistant", content: null, tool_calls: [call] },
 *   { role: "tool", tool_call_id: "c1", content: "out" },
 *   { role: "assistant", content: "done" },
 * ]);
 * if (layout.headEnd !== 2 || layout.groups.length !== 2) throw new Error(JSON.stringify(layout));
 * if (layout.groups[0].indices.join() !== "2,3") throw new Error("call split from its result");
 * ```
 */
export function splitTurnGroups(
  messages: readonly ChatMessage[],
  isProtected?: ProtectedMessagePredicate,
): TranscriptLayout {
  let headEnd = 0;
  while (headEnd < messages.length && messages[headEnd].role === "system") headEnd++;
  if (headEnd < messages.length && messages[headEnd].role === "user") headEnd++;
  let lastUser = -1;
  for (let i = messages.length - 1; i >= headEnd; i--) {
    if (messages[i].role === "user") {
      lastUser = i;
      break;
    }
  }
  const groups: TurnGroup[] = [];
  let current: TurnGroup | undefined;
  let open = new Set<string>();
  for (let i = headEnd; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "tool") {
      if (current && open.delete(message.tool_call_id)) {
        current.indices.push(i);
        if (!current.protected && isProtected?.(message)) current.protected = true;
      }
      continue;
    }
    current = {
      start: i,
      indices: [i],
      protected: i === lastUser || (isProtected?.(message) ?? false),
    };
    groups.push(current);
    open = new Set(
      message.role === "assistant" ? (message.tool_calls ?? []).map((call) => call.id) : [],
    );
  }
  return { headEnd, groups };
}
