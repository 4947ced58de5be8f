/**
 * The JSON-lines loop of a tool child, for any set of tools (the same protocol as
 * `tools/files.ts`: one request per line on stdin, one response per line on stdout, requests
 * served concurrently, every failure a response).
 *
 * @module
 */
import { z } from "zod";
import { failureResponse, ToolFailure, ToolRequestSchema, type ToolResponse } from "./_protocol.ts";

/** A tool of a child: runs against the realpathed workspace, returns the text for the model. */
export type ChildTool = (
  workspace: string,
  args: Record<string, unknown>,
) => Promise<string>;

/**
 * Answer one request line with one of `tools`. Never throws.
 *
 * @param tools the tools this child serves, by name
 * @param line one JSON request
 * @param child the child's name, used in messages (`web`)
 * @returns the response to write back
 *
 * @example An unknown tool
 * ```ts
 * import { answerRequestLine } from "./_serve_tools.ts";
 * const response = await answerRequestLine({}, '{"id":1,"tool":"nope","args":{},"workspace":"/tmp"}', "web");
 * if (response.ok || response.error.kind !== "invalid_arguments") throw new Error("unexpected");
 * ```
 */
export async function answerRequestLine(
  tools: Readonly<Record<string, ChildTool>>,
  line: string,
  child: string,
): Promise<ToolResponse> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return failureResponse(
      -1,
      "request",
      new ToolFailure("invalid_arguments", String(error)),
    );
  }
  const parsed = ToolRequestSchema.safeParse(json);
  if (!parsed.success) {
    const raw = (json as { id?: unknown })?.id;
    const message = `Malformed request: ${z.prettifyError(parsed.error)}`;
    return failureResponse(
      typeof raw === "number" ? raw : -1,
      "request",
      new ToolFailure("invalid_arguments", message),
    );
  }
  const { id, tool, args, workspace } = parsed.data;
  const run = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
  if (run === undefined) {
    const names = Object.keys(tools).join(", ") || "nothing";
    const message = `The ${child} tool child has no tool ${tool}: it serves ${names}`;
    return failureResponse(
      id,
      tool,
      new ToolFailure("invalid_arguments", message),
    );
  }
  try {
    return { id, ok: true, output: await run(workspace, args) };
  } catch (error) {
    if (error instanceof z.ZodError) {
      const message = `Invalid arguments for ${tool}: ${z.prettifyError(error)}`;
      return failureResponse(
        id,
        tool,
        new ToolFailure("invalid_arguments", message),
      );
    }
    return failureResponse(id, tool, error);
  }
}

/**
 * Serve requests from `input` to `output` until `input` ends, then wait for the calls in flight.
 *
 * @param tools the tools this child serves
 * @param child the child's name, used in messages
 * @param input request lines (stdin)
 * @param output response lines (stdout)
 */
export async function serveTools(
  tools: Readonly<Record<string, ChildTool>>,
  child: string,
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): Promise<void> {
  const writer = output.getWriter();
  const encoder = new TextEncoder();
  const inFlight = new Set<Promise<void>>();
  const answer = async (line: string) => {
    const response = await answerRequestLine(tools, line, child);
    await writer.write(encoder.encode(`${JSON.stringify(response)}\n`));
  };
  let carry = "";
  for await (const text of input.pipeThrough(new TextDecoderStream())) {
    const lines = (carry + text).split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      const call = answer(line).finally(() => inFlight.delete(call));
      inFlight.add(call);
    }
  }
  if (carry.trim() !== "") await answer(carry);
  await Promise.all(inFlight);
  await writer.close();
}
