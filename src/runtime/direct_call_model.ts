/**
 * The "model" of a direct tool call: a surface (an MCP client of `odek mcp serve`, later the web
 * UI) names one tool call itself, and it runs as a one-step run through the same path as a
 * model's call — looked up, validated, classified, approved, sandboxed, checkpointed and
 * journaled. The first request is answered with that call; the next one ends the run.
 *
 * @module
 */
import type { Model, ModelRequest, ModelResponse } from "../llm/model.ts";

/**
 * One tool call a surface asks for (`startRun({ toolCall })`).
 *
 * @example Read a file as a one-step run
 * ```ts
 * import type { DirectToolCall } from "./direct_call_model.ts";
 * const call: DirectToolCall = { name: "read_file", args: { path: "README.md" } };
 * // await host.startRun({ message: "The MCP client calls read_file.", toolCall: call });
 * if (call.name !== "read_file") throw new Error();
 * ```
 */
export interface DirectToolCall {
  /** Its id in the transcript. @default a fresh `direct-<uuid>` */
  id?: string;
  /** The tool's name, as the model would call it. */
  name: string;
  /** Its arguments (validated against the tool's schema like a model's). */
  args: Record<string, unknown>;
}

/** The final text of a direct call's run (its result is the tool message before it). */
export const DIRECT_CALL_DONE = "(direct tool call: the result above went to the caller)";

/**
 * A model that answers the first request with `call` and every later one with
 * {@linkcode DIRECT_CALL_DONE}; it reports no token use.
 *
 * @param call the call, with its id
 * @returns the model
 *
 * @example The call, then the end
 * ```ts
 * import { directCallModel, DIRECT_CALL_DONE } from "./direct_call_model.ts";
 * const model = directCallModel({ id: "d1", name: "read_file", args: { path: "a.txt" } });
 * const first = await model.complete({ messages: [], tools: [], iteration: 1 });
 * if (first.message.tool_calls?.[0].function.name !== "read_file") throw new Error("call");
 * const next = await model.complete({ messages: [], tools: [], iteration: 2 });
 * if (next.message.content !== DIRECT_CALL_DONE) throw new Error("end");
 * ```
 */
export function directCallModel(call: Required<DirectToolCall>): Model {
  let answered = false;
  return {
    complete(request: ModelRequest): Promise<ModelResponse> {
      request.signal?.throwIfAborted();
      const usage = { inputTokens: 0, outputTokens: 0 };
      if (answered) {
        return Promise.resolve({
          message: { role: "assistant", content: DIRECT_CALL_DONE },
          finishReason: "stop",
          usage,
        });
      }
      answered = true;
      return Promise.resolve({
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          }],
        },
        finishReason: "tool_calls",
        usage,
      });
    },
  };
}
