/**
 * The request loop shared by the tool children (`files.ts`, `compute.ts`): one JSON request per
 * line in, one JSON response per line out, requests answered concurrently, every failure a
 * response (see `_protocol.ts`).
 *
 * @module
 */
import { z } from "zod";
import { failureResponse, ToolFailure, ToolRequestSchema, type ToolResponse } from "./_protocol.ts";

/**
 * A tool of a child: gets the request's workspace, raw arguments and the extra directories
 * (`--add-dir`) a target may also lie in; returns the model's text (or a promise of it).
 */
export type ChildTool = (
  workspace: string,
  args: Record<string, unknown>,
  roots: readonly string[],
) => string | Promise<string>;

/**
 * Answer one request line with one of `tools`. Never throws: a bad line, an unknown tool,
 * invalid arguments (a `ZodError` thrown by the tool), a refusal or a denial all come back as a
 * response (a line without a usable id is answered with id -1 so the core can log it).
 *
 * @param tools the tools this child serves, by name
 * @param child the child's name, used in the message for an unknown tool
 * @param line one JSON request
 * @returns the response to write back
 *
 * @example An unknown tool
 * ```ts
 * import { answerRequestLine } from "./_serve.ts";
 * const response = await answerRequestLine({}, "demo", '{"id":1,"tool":"x","args":{},"workspace":"/"}');
 * if (response.ok || response.error.kind !== "invalid_arguments") throw new Error("unexpected");
 * ```
 */
export async function answerRequestLine(
  tools: Readonly<Record<string, ChildTool>>,
  child: string,
  line: string,
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
    const id = typeof (json as { id?: unknown })?.id === "number"
      ? (json as { id: number }).id
      : -1;
    const message = `Malformed request: ${z.prettifyError(parsed.error)}`;
    return failureResponse(
      id,
      "request",
      new ToolFailure("invalid_arguments", message),
    );
  }
  const { id, tool, args, workspace, roots } = parsed.data;
  const run = Object.hasOwn(tools, tool) ? tools[tool] : undefined;
  if (run === undefined) {
    const message = `The ${child} child has no tool ${tool}: it serves ${
      Object.keys(tools).join(", ")
    }`;
    return failureResponse(
      id,
      tool,
      new ToolFailure("invalid_arguments", message),
    );
  }
  try {
    return { id, ok: true, output: await run(workspace, args, roots ?? []) };
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
 * Serve request lines from `input` to `output` with `answer` until `input` ends, then wait for
 * the calls in flight and close `output`.
 *
 * @param input request lines (stdin of the child)
 * @param output response lines (stdout of the child)
 * @param answer answers one line
 *
 * @example Serve one request from memory
 * ```ts
 * import { serveLines } from "./_serve.ts";
 * let out = "";
 * await serveLines(
 *   ReadableStream.from([new TextEncoder().encode('{"id":7}\n')]),
 *   new WritableStream({ write: (chunk) => void (out += new TextDecoder().decode(chunk)) }),
 *   (line) => Promise.resolve({ id: JSON.parse(line).id, ok: true, output: "hi" }),
 * );
 * if (JSON.parse(out).output !== "hi") throw new Error(out);
 * ```
 */
export async function serveLines(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
  answer: (line: string) => Promise<ToolResponse>,
): Promise<void> {
  const writer = output.getWriter();
  const encoder = new TextEncoder();
  const inFlight = new Set<Promise<void>>();
  const reply = async (line: string) => {
    const response = await answer(line);
    await writer.write(encoder.encode(`${JSON.stringify(response)}\n`));
  };
  let carry = "";
  for await (const text of input.pipeThrough(new TextDecoderStream())) {
    const lines = (carry + text).split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "") continue;
      const call = reply(line).finally(() => inFlight.delete(call));
      inFlight.add(call);
    }
  }
  if (carry.trim() !== "") await reply(carry);
  await Promise.all(inFlight);
  await writer.close();
}
