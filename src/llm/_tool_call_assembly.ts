/**
 * Tool-call deltas of one streamed turn, assembled into whole calls: by `index`, tolerant of
 * missing indexes and ids, of a name restated on every chunk, and of two calls a provider sends
 * on the same `index`.
 *
 * @module
 */
import type { ToolCall } from "../_util/chat_message.ts";

/** One `delta.tool_calls[]` entry, as the chunk schema parsed it. */
export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

interface PartialCall {
  /** The provider's `index` (or the one assigned to a delta without one). */
  index: number;
  /** Creation order, to keep two calls that share an index apart and in order. */
  seq: number;
  id?: string;
  name: string;
  arguments: string;
}

/** What {@linkcode ToolCallAssembly.push} reports for a delta that started a call. */
export interface StartedCall {
  index: number;
  name?: string;
}

/**
 * Assembles tool-call deltas. A delta goes to the current call of its `index` (a delta without
 * an `index` to the last call touched) and starts a new call when that index has none yet, or
 * when it cannot belong to the current one (issue 14, case 1):
 *
 * - it carries a non-empty id different from the call's id (when both have an id, the ids alone
 *   decide), or
 * - it carries a name and the arguments collected so far already parse as a complete JSON value,
 *   unless the name is the call's own (some gateways restate the full name on every chunk of one
 *   call) and the delta brings no new JSON value (arguments that start with `{` or `[`).
 *
 * A restated name is never appended to the call's name.
 */
export class ToolCallAssembly {
  readonly #calls: PartialCall[] = [];
  readonly #current = new Map<number, PartialCall>();
  #last: PartialCall | undefined;

  /**
   * Adds one delta.
   *
   * @returns the index and name of the call it started, or `undefined` when it continued one
   */
  push(delta: ToolCallDelta): StartedCall | undefined {
    const name = delta.function?.name || undefined;
    const id = delta.id || undefined;
    const piece = delta.function?.arguments ?? "";
    const target = delta.index ?? undefined;
    let call = target === undefined ? this.#last : this.#current.get(target);
    let started: StartedCall | undefined;
    if (call === undefined || startsNewCall(call, id, name, piece)) {
      const index = target ?? (this.#last === undefined ? 0 : this.#last.index + 1);
      call = { index, seq: this.#calls.length, name: name ?? "", arguments: "" };
      this.#calls.push(call);
      this.#current.set(index, call);
      started = name ? { index, name } : { index };
    } else if (name && call.name === "") {
      call.name = name;
    }
    if (id && call.id === undefined) call.id = id;
    call.arguments += piece;
    this.#last = call;
    return started;
  }

  /**
   * The assembled calls in `index` order (calls that share an index in the order they started).
   * A missing or repeated id becomes `it<iteration>-call<position>`; empty or whitespace-only
   * arguments become `"{}"`; other arguments are kept verbatim, valid JSON or not.
   *
   * @param iteration the loop iteration, for generated ids
   */
  calls(iteration: number): ToolCall[] {
    const ordered = [...this.#calls].sort((a, b) => a.index - b.index || a.seq - b.seq);
    // Ids must be unique within a message: a result answers exactly one call, and resume repair
    // pairs them by id. A repeated id gets the deterministic one instead.
    const seen = new Set<string>();
    return ordered.map((call, position) => {
      const fallback = `it${iteration}-call${position}`;
      let id = call.id && !seen.has(call.id) ? call.id : fallback;
      while (seen.has(id)) id = `${id}-dup`;
      seen.add(id);
      return {
        id,
        type: "function",
        function: {
          name: call.name,
          // "   \n " for a tool without parameters (issue 14, case 3): it means no arguments.
          arguments: call.arguments.trim() === "" ? "{}" : call.arguments,
        },
      };
    });
  }
}

/** Whether a delta with this id, name and argument piece starts a call after `call`. */
function startsNewCall(
  call: PartialCall,
  id: string | undefined,
  name: string | undefined,
  piece: string,
): boolean {
  // Ids, when both sides have one, decide.
  if (id !== undefined && call.id !== undefined) return id !== call.id;
  if (name === undefined || call.name === "") return false;
  if (name === call.name) {
    // A restated name continues the call, unless the delta opens a second JSON value after a
    // complete one (two calls of the same tool on one index, without ids).
    const opens = /^\s*[[{]/.test(piece);
    return opens && /[\]}]\s*$/.test(call.arguments) && isCompleteJson(call.arguments);
  }
  return isCompleteJson(call.arguments);
}

/** Whether `text` is one whole JSON value (blank text is not). */
function isCompleteJson(text: string): boolean {
  if (text.trim() === "") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
