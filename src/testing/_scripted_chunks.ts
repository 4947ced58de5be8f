/**
 * Turns a {@linkcode ScriptedTurn} into the chat-completion chunks a real provider would stream,
 * and into a non-streaming completion. Shared by the fake server and the scripted model.
 *
 * @module
 */
import type { ScriptedTurn } from "./fake_openai_server.ts";

/** A chat-completion chunk or completion as plain JSON. */
export type JsonObject = Record<string, unknown>;

/** What identifies the completion the chunks belong to. */
export interface ChunkContext {
  /** Completion id shared by every chunk. */
  id: string;
  /** Echoed `model` field. */
  model: string;
  /** Unix seconds. */
  created: number;
  /** 1-based number of this turn in the script, used for default tool-call ids. */
  turnNumber: number;
  /** The request's token count (see `countRequestTokens`), reported as `prompt_tokens`. */
  promptTokens: number;
}

/** Normal chunks of a turn, split so faults can cut or extend them. */
export interface ScriptedChunks {
  /** Role, reasoning, text and tool-call chunks. */
  body: JsonObject[];
  /** The chunk with an empty delta and the `finish_reason`. */
  finish: JsonObject;
  /** The usage chunk (`choices: []`). */
  usage: JsonObject;
}

/** Splits text into pieces of a few characters up to a word, as providers stream it. */
export function splitText(text: string): string[] {
  const pieces: string[] = [];
  for (const word of text.match(/\s*\S+\s*|\s+/g) ?? []) {
    for (let i = 0; i < word.length; i += 6) pieces.push(word.slice(i, i + 6));
  }
  return pieces;
}

/** Splits tool-call arguments into ~7-character fragments that cut through JSON tokens. */
export function splitArguments(args: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < args.length; i += 7) pieces.push(args.slice(i, i + 7));
  return pieces;
}

/** The raw argument text of a scripted tool call. */
export function argumentsText(args: string | Record<string, unknown>): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** The id a scripted call gets: its own, none (`null`), or `call_<turn>_<index>`. */
export function scriptedCallId(
  id: string | null | undefined,
  turnNumber: number,
  index: number,
): string | undefined {
  if (id === null) return undefined;
  return id ?? `call_${turnNumber}_${index}`;
}

/** The finish reason of a turn: its own, `tool_calls` when it calls tools, else `stop`. */
export function finishReasonOf(turn: ScriptedTurn): string {
  return turn.finishReason ?? (turn.toolCalls?.length ? "tool_calls" : "stop");
}

/** The usage a turn reports: its own, or the request's count and ~4 characters per token out. */
export function usageOf(
  turn: ScriptedTurn,
  promptTokens: number,
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const outChars = (turn.text ?? "").length + (turn.reasoning ?? "").length +
    (turn.toolCalls ?? []).reduce((n, c) => n + argumentsText(c.arguments).length, 0);
  const prompt = turn.usage?.prompt_tokens ?? promptTokens;
  const completion = turn.usage?.completion_tokens ?? Math.ceil(outChars / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** Builds the streamed chunks of a turn, interleaving the argument pieces of parallel calls. */
export function scriptedChunks(turn: ScriptedTurn, ctx: ChunkContext): ScriptedChunks {
  const envelope = { id: ctx.id, object: "chat.completion.chunk", created: ctx.created };
  const chunk = (delta: JsonObject, finishReason: string | null = null): JsonObject => ({
    ...envelope,
    model: ctx.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const body: JsonObject[] = [chunk({ role: "assistant", content: "" })];
  if (turn.deltas) {
    return {
      body: [...body, ...turn.deltas.map((delta) => chunk(delta))],
      finish: chunk({}, finishReasonOf(turn)),
      usage: { ...envelope, model: ctx.model, choices: [], usage: usageOf(turn, ctx.promptTokens) },
    };
  }
  for (const piece of splitText(turn.reasoning ?? "")) {
    body.push(chunk({ content: null, reasoning_content: piece }));
  }
  for (const piece of splitText(turn.text ?? "")) body.push(chunk({ content: piece }));
  const calls = (turn.toolCalls ?? []).map((call, index) => ({
    index,
    header: {
      index,
      ...(scriptedCallId(call.id, ctx.turnNumber, index) === undefined
        ? {}
        : { id: scriptedCallId(call.id, ctx.turnNumber, index) }),
      type: "function",
      function: { name: call.name, arguments: "" },
    },
    pieces: splitArguments(argumentsText(call.arguments)),
  }));
  const rounds = Math.max(0, ...calls.map((c) => c.pieces.length + 1));
  for (let round = 0; round < rounds; round++) {
    for (const call of calls) {
      if (round === 0) body.push(chunk({ tool_calls: [call.header] }));
      else if (round <= call.pieces.length) {
        const fragment = { index: call.index, function: { arguments: call.pieces[round - 1] } };
        body.push(chunk({ tool_calls: [fragment] }));
      }
    }
  }
  return {
    body,
    finish: chunk({}, finishReasonOf(turn)),
    usage: { ...envelope, model: ctx.model, choices: [], usage: usageOf(turn, ctx.promptTokens) },
  };
}

/** Builds the non-streaming `chat.completion` object of a turn. */
export function scriptedCompletion(turn: ScriptedTurn, ctx: ChunkContext): JsonObject {
  const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
    id: scriptedCallId(call.id, ctx.turnNumber, index),
    type: "function",
    function: { name: call.name, arguments: argumentsText(call.arguments) },
  }));
  const message: JsonObject = { role: "assistant", content: turn.text ?? null };
  if (turn.reasoning) message.reasoning_content = turn.reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(turn) }],
    usage: usageOf(turn, ctx.promptTokens),
  };
}

/** Encodes one SSE event carrying `payload` (JSON-encoded unless already a string). */
export function sseFrame(payload: JsonObject | string): string {
  return `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
}
