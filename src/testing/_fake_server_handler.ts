/**
 * The request handler behind {@linkcode startFakeOpenAIServer}: routing, scripted turns, faults,
 * and the paced SSE body.
 *
 * @module
 */
import type { Fault, RecordedRequest, ScriptedTurn } from "./fake_openai_server.ts";
import {
  type ChunkContext,
  type JsonObject,
  scriptedChunks,
  scriptedCompletion,
  sseFrame,
} from "./_scripted_chunks.ts";
import { sleep } from "./_sleep.ts";
import { contextLengthErrorBody, countRequestTokens } from "./_request_tokens.ts";
import { strictHistoryRefusal } from "./_strict_history.ts";

/** What the handler needs from the server around it. */
export interface FakeHandlerState {
  turns:
    | ScriptedTurn[]
    | ((request: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);
  requests: RecordedRequest[];
  /** Aborted when the server closes: every wait and open stream ends. */
  closing: AbortSignal;
  /** Called on every request (resets the idle timer). */
  onRequest: () => void;
  /** Refuse requests over this many tokens with the context-length 400. @default no limit */
  contextWindow?: number;
  /** Refuse histories a strict provider refuses, with a 400. @default false */
  strict?: boolean;
  /** What `GET /v1/models` lists. @default one model, `fake-model` */
  models?: readonly (string | { id: string; [key: string]: unknown })[];
}

/** Creates the fetch-style handler; the chat-request counter lives in its closure. */
export function createFakeHandler(state: FakeHandlerState): (req: Request) => Promise<Response> {
  let chatCount = 0;
  return async (req) => {
    state.onRequest();
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (req.method === "GET" && path === "/v1/models") {
      const data = (state.models ?? ["fake-model"]).map((model) => ({
        object: "model",
        created: 0,
        owned_by: "odek-fake",
        ...(typeof model === "string" ? { id: model } : model),
      }));
      return json(200, { object: "list", data });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return errorJson(404, `fake server: no route for ${req.method} ${path}`);
    }
    const raw = await req.text();
    const parsed = parseJson(raw);
    const isObject = typeof parsed === "object" && parsed !== null;
    const recorded: RecordedRequest = {
      body: parsed ?? raw,
      authorization: req.headers.get("authorization"),
      receivedAt: performance.now(),
      promptTokens: isObject ? countRequestTokens(parsed) : Math.ceil(raw.length / 4),
    };
    state.requests.push(recorded);
    if (!isObject) {
      chatCount++;
      return errorJson(400, "fake server: the request body is not a JSON object");
    }
    // An oversize request is refused before it uses a scripted turn, as a provider would.
    if (state.contextWindow !== undefined && recorded.promptTokens > state.contextWindow) {
      recorded.refused = true;
      recorded.refusal = "context_length_exceeded";
      return new Response(contextLengthErrorBody(state.contextWindow, recorded.promptTokens), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }
    // A history a strict provider refuses never reaches the script (issue 14's strict mode).
    const refusal = state.strict ? strictHistoryRefusal(parsed as JsonObject) : undefined;
    if (refusal) {
      recorded.refused = true;
      recorded.refusal = refusal.message;
      return json(400, {
        error: {
          message: refusal.message,
          type: "invalid_request_error",
          param: refusal.param,
          code: null,
        },
      });
    }
    const index = chatCount++;
    let turn: ScriptedTurn;
    try {
      if (typeof state.turns === "function") turn = await state.turns(recorded, index);
      else if (index < state.turns.length) turn = state.turns[index];
      else {
        const have = state.turns.length;
        return errorJson(
          500,
          `fake server: no scripted turn ${index + 1} (the script has ${have})`,
        );
      }
    } catch (err) {
      return errorJson(500, `fake server: the turn script threw: ${String(err)}`);
    }
    // The body's cancel() aborts `ended` when the client goes away (req.signal is not used: in
    // Deno 2 it also aborts after every successful response and warns about it).
    const ended = new AbortController();
    const signal = AbortSignal.any([ended.signal, state.closing]);
    if (turn.delayMs) await sleep(turn.delayMs, signal);
    const body = recorded.body as JsonObject;
    const ctx: ChunkContext = {
      id: `chatcmpl-fake-${index + 1}`,
      model: typeof body.model === "string" ? body.model : "fake-model",
      created: Math.floor(Date.now() / 1000),
      turnNumber: index + 1,
      promptTokens: recorded.promptTokens,
    };
    return respond(turn, ctx, body, { signal, ended });
  };
}

interface Pacing {
  signal: AbortSignal;
  ended: AbortController;
}

function respond(turn: ScriptedTurn, ctx: ChunkContext, body: JsonObject, pacing: Pacing) {
  const fault: Fault | undefined = turn.fault;
  if (fault?.type === "status") {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      ...fault.headers,
    };
    if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
    const text = fault.body ??
      JSON.stringify({
        error: { message: `fake server: scripted HTTP ${fault.status}`, type: "server_error" },
      });
    return new Response(text, { status: fault.status, headers });
  }
  const pace = {
    ...pacing,
    chunkDelayMs: turn.chunkDelayMs ?? 0,
    hang: fault?.type === "hang" || fault?.type === "stall",
    reset: fault?.type === "reset",
  };
  if (body.stream !== true) {
    const completion = scriptedCompletion(turn, ctx);
    if (fault?.type === "empty_choices") completion.choices = [];
    let text = JSON.stringify(completion);
    if (fault?.type === "cut") text = text.slice(0, Math.floor(text.length / 2));
    if (fault?.type === "malformed") text = `{"id": "${ctx.id}", not json`;
    const frames = fault?.type === "hang" || fault?.type === "reset" ? [] : [text];
    return new Response(paced(frames, pace), { headers: { "content-type": "application/json" } });
  }
  const options = body.stream_options as { include_usage?: unknown } | undefined;
  const frames = streamFrames(turn, ctx, options?.include_usage === true);
  return new Response(paced(frames, pace), {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** The SSE frames of a streamed turn after its fault is applied. */
function streamFrames(turn: ScriptedTurn, ctx: ChunkContext, includeUsage: boolean): string[] {
  const { body, finish, usage } = scriptedChunks(turn, ctx);
  const tail = [finish, ...(includeUsage ? [usage] : [])];
  const fault = turn.fault;
  switch (fault?.type) {
    case undefined:
      return [...body, ...tail, "[DONE]"].map(sseFrame);
    case "cut":
      return body.slice(0, Math.max(0, fault.afterChunks)).map(sseFrame);
    case "malformed": {
      const mid = Math.max(1, Math.floor(body.length / 2));
      const broken = `{"id":"${ctx.id}","choices":[{"index":0,"delta":{"content":"tru`;
      return [...body.slice(0, mid), broken, ...body.slice(mid), ...tail, "[DONE]"].map(sseFrame);
    }
    case "no_done":
      return [...body, ...tail].map(sseFrame);
    case "empty_choices": {
      const empty = { id: ctx.id, object: "chat.completion.chunk", created: ctx.created };
      return [{ ...empty, model: ctx.model, choices: [] }, {
        ...empty,
        model: ctx.model,
        choices: [],
      }, "[DONE]"]
        .map(sseFrame);
    }
    case "hang":
      return [];
    case "stall":
      return body.slice(0, Math.max(0, fault.afterChunks ?? 1)).map(sseFrame);
    case "reset":
      return body.slice(0, Math.max(0, fault.afterChunks ?? 0)).map(sseFrame);
    case "status":
      throw new TypeError("status faults are answered before streaming");
    default: {
      const unreachable: never = fault;
      throw new TypeError(`Unknown fault: ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * A body that sends `frames` with `chunkDelayMs` between them; then `hang` keeps it open until
 * abort, and `reset` aborts the connection (an errored body makes Deno drop it mid-response).
 */
function paced(
  frames: string[],
  pace: Pacing & { chunkDelayMs: number; hang: boolean; reset: boolean },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream({
    async pull(controller) {
      if (next > 0 && next < frames.length && pace.chunkDelayMs > 0) {
        await sleep(pace.chunkDelayMs, pace.signal);
      }
      if (next >= frames.length && pace.reset) {
        return controller.error(new DOMException("scripted connection reset", "AbortError"));
      }
      if (next >= frames.length && pace.hang) await sleep(Infinity, pace.signal);
      if (pace.signal.aborted || next >= frames.length) return controller.close();
      controller.enqueue(encoder.encode(frames[next++]));
    },
    cancel() {
      pace.ended.abort();
    },
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function json(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function errorJson(status: number, message: string): Response {
  return json(status, { error: { message, type: "fake_server_error", code: null } });
}
