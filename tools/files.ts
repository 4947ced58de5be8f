/**
 * The file-tool child: a long-lived program run by the core inside bwrap with scoped Deno
 * permissions (design §2). It reads one JSON request per line on stdin
 * (`{ id, tool, args, workspace }`), runs requests concurrently, and writes one JSON response per
 * line on stdout (`{ id, ok: true, output }` or `{ id, ok: false, error: { name, message, code?,
 * kind } }`). Denials are responses, never crashes. It exits when stdin closes.
 *
 * Tools: `read_file`, `write_file`, `patch`, `search_files`, `glob`, `file_info`, `tree`,
 * `head_tail`. Every target is realpathed and must lie inside the request's workspace.
 *
 * @module
 */
import { fileInfo } from "./_file_info.ts";
import { glob } from "./_glob.ts";
import { headTail } from "./_head_tail.ts";
import type { ToolResponse } from "./_protocol.ts";
import { patch } from "./_patch.ts";
import { readFile } from "./_read_file.ts";
import { searchFiles } from "./_search_files.ts";
import { answerRequestLine, type ChildTool, serveLines } from "./_serve.ts";
import { tree } from "./_tree.ts";
import { writeFile } from "./_write_file.ts";

/** A file tool: runs against the realpathed workspace, returns the text for the model. */
export type FileTool = ChildTool;

/** The tools this child serves, by name. */
export const FILE_TOOLS: Readonly<Record<string, FileTool>> = {
  read_file: readFile,
  write_file: writeFile,
  patch,
  search_files: searchFiles,
  glob,
  file_info: fileInfo,
  tree,
  head_tail: headTail,
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
export function handleRequestLine(line: string): Promise<ToolResponse> {
  return answerRequestLine(FILE_TOOLS, "file-tool", line);
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
export function serve(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): Promise<void> {
  return serveLines(input, output, handleRequestLine);
}

if (import.meta.main) await serve(Deno.stdin.readable, Deno.stdout.writable);
