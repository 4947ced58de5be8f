/**
 * An in-process {@linkcode Model} that answers from a script, for unit tests of the loop.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { ChatStreamAssembler } from "../llm/chat_stream_assembler.ts";
import type { Model, ModelDelta, ModelRequest, ModelResponse } from "../llm/model.ts";
import type { ScriptedTurn } from "./fake_openai_server.ts";
import { type JsonObject, scriptedChunks } from "./_scripted_chunks.ts";
import { sleep } from "./_sleep.ts";
import { countRequestTokens } from "./_request_tokens.ts";

/**
 * A request as {@linkcode ScriptedModel} keeps it: a deep copy, without the signal.
 *
 * @example Read what the loop asked
 * ```ts
 * import { ScriptedModel, type ScriptedModelRequest } from "./scripted_model.ts";
 * const model = new ScriptedModel([{ text: "ok" }]);
 * await model.complete({ messages: [{ role: "user", content: "hi" }], tools: [], iteration: 1 });
 * const [first]: ScriptedModelRequest[] = model.requests;
 * if (first.messages[0].content !== "hi") throw new Error("request");
 * ```
 */
export type ScriptedModelRequest = Omit<ModelRequest, "signal">;

/**
 * The script: a list (turn N answers call N) or a function of the request and its 0-based index.
 *
 * @example Answer from the request
 * ```ts
 * import { ScriptedModel, type ScriptedModelTurns } from "./scripted_model.ts";
 * const turns: ScriptedModelTurns = (request) => ({ text: `turn ${request.iteration}` });
 * const reply = await new ScriptedModel(turns).complete({ messages: [], tools: [], iteration: 3 });
 * if (reply.message.content !== "turn 3") throw new Error(String(reply.message.content));
 * ```
 */
export type ScriptedModelTurns =
  | ScriptedTurn[]
  | ((request: ScriptedModelRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>);

/**
 * Options for {@linkcode ScriptedModel}.
 *
 * @example Name the model in the chunks
 * ```ts
 * import type { ScriptedModelOptions } from "./scripted_model.ts";
 * const options: ScriptedModelOptions = { model: "my-test-model" };
 * if (options.model !== "my-test-model") throw new Error("model");
 * ```
 */
export interface ScriptedModelOptions {
  /** The `model` field of the generated chunks. @default "scripted-model" */
  model?: string;
}

/**
 * Answers {@linkcode Model.complete} from {@linkcode ScriptedTurn}s without HTTP. It builds the
 * same chunks as the fake server and assembles them with the same {@linkcode ChatStreamAssembler}
 * as {@linkcode OpenAIModel}, so ids, `"{}"` arguments, deltas and usage behave alike.
 *
 * Faults map to the errors the real model throws once its retries are spent (this model never
 * retries): `status` → `MODEL_ERROR`; `cut`, `empty_choices`, `malformed` and `reset` →
 * `MODEL_PROTOCOL`; `no_done` is a normal turn; `hang` and `stall` wait for `request.signal`
 * (forever without one). `delayMs` and `chunkDelayMs` are honoured. A call
 * past the end of a list throws `MODEL_ERROR` `scripted model: no scripted turn N`.
 *
 * @example Script a tool call, then an answer
 * ```ts
 * import {
 *   ScriptedModel,
 *   type ScriptedModelOptions,
 *   type ScriptedModelRequest,
 *   type ScriptedModelTurns,
 * } from "./scripted_model.ts";
 * const turns: ScriptedModelTurns = [
 *   { toolCalls: [{ name: "glob", arguments: { pattern: "*.ts" } }] },
 *   { text: "done" },
 * ];
 * const options: ScriptedModelOptions = { model: "scripted" };
 * const model = new ScriptedModel(turns, options);
 * const first = await model.complete({ messages: [], tools: [], iteration: 1 });
 * if (first.finishReason !== "tool_calls") throw new Error("unexpected");
 * const second = await model.complete({ messages: [], tools: [], iteration: 2 });
 * const seen: ScriptedModelRequest[] = model.requests;
 * if (second.message.content !== "done" || seen.length !== 2) throw new Error("bad");
 * ```
 */
export class ScriptedModel implements Model {
  /** Every request received, deep-copied, in order. */
  readonly requests: ScriptedModelRequest[] = [];
  readonly #turns: ScriptedModelTurns;
  readonly #model: string;
  #count = 0;

  /**
   * A model that answers with the script's turns, in order.
   *
   * @param turns the script
   * @param options the model name of the generated chunks
   */
  constructor(turns: ScriptedModelTurns, options: ScriptedModelOptions = {}) {
    this.#turns = turns;
    this.#model = options.model ?? "scripted-model";
  }

  /**
   * Answers with the next scripted turn.
   *
   * @throws {OdekError} `MODEL_ERROR`, `MODEL_PROTOCOL` as the turn's fault says
   * @throws {DOMException} the signal's reason when `request.signal` aborts
   */
  async complete(
    request: ModelRequest,
    onDelta?: (delta: ModelDelta) => void,
  ): Promise<ModelResponse> {
    const { signal } = request;
    signal?.throwIfAborted();
    const copy: ScriptedModelRequest = structuredClone({
      messages: request.messages,
      tools: request.tools,
      iteration: request.iteration,
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    });
    this.requests.push(copy);
    const index = this.#count++;
    const turn = await this.#turnFor(structuredClone(copy), index);
    await sleep(turn.delayMs ?? 0, signal);
    signal?.throwIfAborted();
    const fault = turn.fault;
    if (fault?.type === "status") {
      throw new OdekError(
        "MODEL_ERROR",
        `The scripted model answered HTTP ${fault.status}: ${fault.body ?? "scripted status"}`,
      );
    }
    if (fault?.type === "hang") {
      await sleep(Infinity, signal);
      signal?.throwIfAborted();
    }
    const ctx = {
      id: `chatcmpl-scripted-${index + 1}`,
      model: this.#model,
      created: Math.floor(Date.now() / 1000),
      turnNumber: index + 1,
      promptTokens: countRequestTokens(copy.tools.length > 0 ? copy : { messages: copy.messages }),
    };
    const { body, finish, usage } = scriptedChunks(turn, ctx);
    let chunks: JsonObject[] = [...body, finish, usage];
    if (fault?.type === "cut") chunks = body.slice(0, Math.max(0, fault.afterChunks));
    if (fault?.type === "stall" || fault?.type === "reset") {
      chunks = body.slice(0, Math.max(0, fault.afterChunks ?? (fault.type === "stall" ? 1 : 0)));
    }
    if (fault?.type === "malformed") {
      chunks = body.slice(0, Math.max(1, Math.floor(body.length / 2)));
    }
    if (fault?.type === "empty_choices") {
      chunks = [{ ...finish, choices: [] }, { ...finish, choices: [] }];
    }
    const assembler = new ChatStreamAssembler({
      iteration: request.iteration,
      onDelta,
      source: "the scripted model",
    });
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs, signal);
      signal?.throwIfAborted();
      assembler.push(chunk);
    }
    if (fault?.type === "stall") {
      await sleep(Infinity, signal);
      signal?.throwIfAborted();
    }
    if (fault?.type === "reset") {
      throw new OdekError(
        "MODEL_PROTOCOL",
        `The stream to the scripted model failed: the connection was reset (scripted fault).`,
      );
    }
    if (fault?.type === "malformed") {
      throw new OdekError(
        "MODEL_PROTOCOL",
        `The scripted model sent a stream chunk that is not valid JSON (scripted fault).`,
      );
    }
    return assembler.finish();
  }

  #turnFor(request: ScriptedModelRequest, index: number): ScriptedTurn | Promise<ScriptedTurn> {
    if (typeof this.#turns === "function") return this.#turns(request, index);
    const turn = this.#turns[index];
    if (turn === undefined) {
      throw new OdekError(
        "MODEL_ERROR",
        `scripted model: no scripted turn ${index + 1} (the script has ${this.#turns.length})`,
      );
    }
    return turn;
  }
}
