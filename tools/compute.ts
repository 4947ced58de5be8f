/**
 * The compute child: a long-lived program the core runs with no permissions at all (no
 * `--allow-*` flag, and inside bwrap no workspace mounted): it can read no file, reach no network,
 * see no environment variable and run nothing. Same JSON-lines protocol as `files.ts`
 * (`_protocol.ts`); the request's `workspace` is ignored.
 *
 * Tools: `math_eval`, `diff`, `json_query`, `checksum`, `base64`.
 *
 * @module
 */
import { base64 } from "./_base64.ts";
import { checksum } from "./_checksum.ts";
import { diffTexts } from "./_diff_texts.ts";
import { jsonQuery } from "./_json_query.ts";
import { mathEval } from "./_math_eval.ts";
import type { ToolResponse } from "./_protocol.ts";
import { answerRequestLine, type ChildTool, serveLines } from "./_serve.ts";

/** The tools this child serves, by name. */
export const COMPUTE_TOOLS: Readonly<Record<string, ChildTool>> = {
  math_eval: mathEval,
  diff: diffTexts,
  json_query: jsonQuery,
  checksum,
  base64,
};

/**
 * Answer one request line (never throws; see `answerRequestLine`).
 *
 * @param line one JSON request
 * @returns the response to write back
 *
 * @example
 * ```ts
 * import { handleComputeRequestLine } from "./compute.ts";
 * const line = '{"id":1,"tool":"math_eval","args":{"expression":"6*7"},"workspace":"/"}';
 * const response = await handleComputeRequestLine(line);
 * if (!response.ok || response.output !== "42") throw new Error(JSON.stringify(response));
 * ```
 */
export function handleComputeRequestLine(line: string): Promise<ToolResponse> {
  return answerRequestLine(COMPUTE_TOOLS, "compute", line);
}

if (import.meta.main) {
  await serveLines(
    Deno.stdin.readable,
    Deno.stdout.writable,
    handleComputeRequestLine,
  );
}
