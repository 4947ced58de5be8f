/**
 * Turn one model tool call into a validated invocation, or into an error result for the model.
 * Arguments that are not valid JSON, unknown tools and schema violations are never executed.
 *
 * @module
 */
import type { ToolCall } from "../_util/chat_message.ts";
import type { BuiltinTool } from "../broker/builtin_tools.ts";
import type { ToolInvocation, ToolResult } from "../broker/tool_broker.ts";
import { jsonDepth, MAX_ARGUMENT_DEPTH } from "../_util/json_depth.ts";

/** Options for {@linkcode prepareToolCall}. */
export interface PrepareToolCallOptions {
  /**
   * The reply that holds the call ended at the model's output limit (`finish_reason:
   * "length"`): arguments that are not valid JSON are reported as cut off. @default false
   */
  outputCut?: boolean;
}

/**
 * Parse and validate a tool call against the tool list.
 *
 * @param call the tool call as the model sent it
 * @param tools the tools of the run
 * @param options whether the reply was cut at the output limit
 * @returns `{ invocation }` when the call may run, else `{ refusal }`: a result for the model
 *   saying what was wrong and how to call the tool correctly.
 *
 * @example Invalid JSON is refused, never run
 * ```ts
 * import { prepareToolCall } from "./prepare_tool_call.ts";
 * import { BUILTIN_TOOLS } from "../broker/builtin_tools.ts";
 * const out = prepareToolCall(
 *   { id: "c1", type: "function", function: { name: "shell", arguments: "{not json" } },
 *   BUILTIN_TOOLS,
 * );
 * if (!("refusal" in out) || out.refusal.ok) throw new Error("should be refused");
 * ```
 */
export function prepareToolCall(
  call: ToolCall,
  tools: readonly BuiltinTool[],
  options: PrepareToolCallOptions = {},
): { invocation: ToolInvocation } | { refusal: ToolResult } {
  const name = call.function.name;
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    const known = tools.map((t) => t.name).join(", ");
    return refuse("unknown_tool", `There is no tool named "${name}". Available tools: ${known}.`);
  }
  const depth = jsonDepth(call.function.arguments);
  if (depth > MAX_ARGUMENT_DEPTH) {
    return refuse(
      "invalid_arguments",
      `The arguments of this ${name} call nest ${depth} levels deep, more than the ${MAX_ARGUMENT_DEPTH} allowed; the call was not run. Send the arguments as one flat JSON object.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.function.arguments || "{}");
  } catch (error) {
    if (options.outputCut) {
      // Issue 14, case 11: say why the JSON broke off, so the model sends less, not the same.
      return refuse(
        "invalid_arguments",
        `The arguments of this ${name} call were cut off: your reply reached the output token ` +
          `limit (finish_reason "length") after ${call.function.arguments.length} characters ` +
          `of arguments, so they are not valid JSON (${
            (error as Error).message
          }) and the call was not run. Send a shorter call: split large content over several ` +
          `calls (e.g. write a file in parts) or leave long text out of the arguments.`,
      );
    }
    return refuse(
      "invalid_arguments",
      `The arguments of this ${name} call are not valid JSON (${
        (error as Error).message
      }); the call was not run. Send the arguments as one JSON object.`,
    );
  }
  const result = tool.schema.safeParse(parsed);
  if (!result.success) {
    const problems = result.error.issues
      .map((issue) => `${issue.path.map(String).join(".") || "(arguments)"}: ${issue.message}`)
      .join("; ");
    return refuse(
      "invalid_arguments",
      `Invalid arguments for ${name}: ${problems}. The call was not run.`,
    );
  }
  return { invocation: { id: call.id, name, args: result.data } };
}

function refuse(
  kind: "unknown_tool" | "invalid_arguments",
  message: string,
): { refusal: ToolResult } {
  return { refusal: { ok: false, error: { kind, message } } };
}
