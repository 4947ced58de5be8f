/**
 * The file-tool child: a long-lived program run by the core inside bwrap with scoped Deno
 * permissions (design §2). It reads one JSON request per line on stdin
 * (`{ id, tool, args, workspace }`), runs requests concurrently, and writes one JSON response per
 * line on stdout (`{ id, ok: true, output }` or `{ id, ok: false, error: { name, message, code?,
 * kind } }`). Denials are responses, never crashes. It exits when stdin closes.
 *
 * Tools: `read_file`, `write_file`, `glob`. Every target is realpathed and must lie inside the
 * request's workspace.
 *
 * @module
 */
import { glob } from "./_glob.ts";
import { failureResponse, ToolFailure, ToolRequestSchema, type ToolResponse } from "./_protocol.ts";
import { readFile } from "./_read_file.ts";
import { writeFile } from "./_write_file.ts";
import { z } from "zod";

/** A file tool: runs against the realpathed workspace, returns the text for the model. */
export type FileTool = (
  workspace: string,
  args: Record<string, unknown>,
  roots?: readonly string[],
) => Promise<string>;

/** The tools this child serves, by name. */
export const FILE_TOOLS: Readonly<Record<string, FileTool>> = {
  read_file: readFile,
  write_file: writeFile,
  glob,
};

/**
 * Answer one request line. Never throws: a bad line, an unknown tool, invalid arguments, a
 * refusal or a denial all come back as a response (a line without a usable id is answered with
 * id -1 so the core can log it).
 *
 * @param line one JSON request
 * @returns the response to write back
 *
 * @example An unknown tool
 * ```ts
 * import { handleRequestLine } from "./files.ts";
 * const response = await handleRequestLine('{"id":1,"tool":"nope","args":{},"workspace":"/tmp"}');
 * if (response.ok || response.error.kind !== "invalid_arguments") throw new Error("unexpected");
 * ```
 */
export async function handleRequestLine(line: string): Promise<ToolResponse> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    return failureResponse(-1, "request", new ToolFailure("invalid_arguments", String(error)));
  }
  const parsed = ToolRequestSchema.safeParse(json);
  if (!parsed.success) {
    const id = typeof (json as { id?: unknown })?.id === "number"
      ? (json as { id: number }).id
      : -1;
    const message = `Malformed request: ${z.prettifyError(parsed.error)}`;
    return failureResponse(id, "request", new ToolFailure("invalid_arguments", message));
  }
  const { id, tool, args, workspace, roots } = parsed.data;
  const run = Object.hasOwn(FILE_TOOLS, tool) ? FILE_TOOLS[tool] : undefined;
  if (run === undefined) {
    const message = `The file-tool child has no tool ${tool}: it serves ${
      Object.keys(FILE_TOOLS).join(", ")
    }`;
    return failureResponse(id, tool, new ToolFailure("invalid_arguments", message));
  }
  try {
    return { id, ok: true, output: await run(workspace, args, roots ?? []) };
  } catch (error) {
    if (error instanceof z.ZodError) {
      const message = `Invalid arguments for ${tool}: ${z.prettifyError(error)}`;
      return failureResponse(id, tool, new ToolFailure("invalid_arguments", message));
    }
    return failureResponse(id, tool, error);
  }
}

/**
 * Serve requests from `input` to `output` until `input` ends, then wait for the calls in flight.
 *
 * @param input request lines (stdin of the child)
 * @param output response lines (stdout of the child)
 *
 * @example Serve one request from memory
 * ```ts
 * import { serve } from "./files.ts";
 * const line = '{"id":7,"tool":"glob","args":{"pattern":"*"},"workspace":"/nonexistent"}\n';
 * let out = "";
 * await serve(
 *   ReadableStream.from([new TextEncoder().encode(line)]),
 *   new WritableStream({ write: (chunk) => void (out += new TextDecoder().decode(chunk)) }),
 * );
 * if (JSON.parse(out).id !== 7) throw new Error(out);
 * ```
 */
export async function serve(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): Promise<void> {
  const writer = output.getWriter();
  const encoder = new TextEncoder();
  const inFlight = new Set<Promise<void>>();
  const answer = async (line: string) => {
    const response = await handleRequestLine(line);
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

if (import.meta.main) await serve(Deno.stdin.readable, Deno.stdout.writable);
