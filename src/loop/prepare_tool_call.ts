/**
 * Turn one model tool call into a validated invocation, or into an error result for the model.
 * Arguments that are not valid JSON, unknown tools and schema violations are never executed.
 *
 * @module
 */
import type { ArgsIssue } from "../../tools/_catalogue/mod.ts";
import type { ToolCall } from "../_util/chat_message.ts";
import type { ToolInvocation, ToolResult } from "../broker/tool_broker.ts";
import { jsonDepth, MAX_ARGUMENT_DEPTH } from "../_util/json_depth.ts";
import type { ResolvedTool, ToolSet } from "./tool_set.ts";

/** A call ready to run (its tool looked up, its arguments validated), or already answered. */
export type PreparedCall =
  | { invocation: ToolInvocation; tool: ResolvedTool }
  | { refusal: ToolResult };

/** Options for {@linkcode prepareToolCall}. */
export interface PrepareToolCallOptions {
  /**
   * The reply that holds the call ended at the model's output limit (`finish_reason:
   * "length"`): arguments that are not valid JSON are reported as cut off. @default false
   */
  outputCut?: boolean;
}

/**
 * Parse and validate a tool call against the run's tools: the one lookup and the one validation
 * of the call (the invocation carries the tool's catalogue entry on, so the broker does neither
 * again).
 *
 * @param call the model's tool call
 * @param tools the run's tools
 * @param options whether the reply was cut at the output limit
 * @returns `{ invocation, tool }` when the call may run (its arguments are the schema's output,
 *   defaults applied), else `{ refusal }`: a result for the model saying what was wrong and how to
 *   call the tool correctly
 *
 * @example Invalid JSON is refused, never run
 * ```ts
 * import { prepareToolCall } from "./prepare_tool_call.ts";
 * import { ToolSet } from "./tool_set.ts";
 * const out = await prepareToolCall(
 *   { id: "c1", type: "function", function: { name: "shell", arguments: "{not json" } },
 *   new ToolSet(),
 * );
 * if (!("refusal" in out) || out.refusal.ok) throw new Error("should be refused");
 * ```
 */
export async function prepareToolCall(
  call: ToolCall,
  tools: ToolSet,
  options: PrepareToolCallOptions = {},
): Promise<PreparedCall> {
  const name = call.function.name;
  const tool = tools.get(name);
  if (!tool) {
    const known = tools.names.join(", ");
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
  const result = await tool.args["~standard"].validate(parsed);
  if (result.issues !== undefined) {
    const problems = result.issues.map(describeIssue).join("; ");
    return refuse(
      "invalid_arguments",
      `Invalid arguments for ${name}: ${problems}. The call was not run.`,
    );
  }
  const args = result.value;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return refuse("invalid_arguments", `The arguments of ${name} must be one JSON object.`);
  }
  const entry = tool.source.type === "builtin" ? { entry: tool.source.entry } : {};
  return { invocation: { id: call.id, name, args, ...entry }, tool };
}

function describeIssue(issue: ArgsIssue): string {
  const path = (issue.path ?? [])
    .map((segment) => String(typeof segment === "object" ? segment.key : segment))
    .join(".");
  return `${path || "(arguments)"}: ${issue.message}`;
}

function refuse(
  kind: "unknown_tool" | "invalid_arguments",
  message: string,
): { refusal: ToolResult } {
  return { refusal: { ok: false, error: { kind, message } } };
}
