/**
 * Input and output limits shared by the compute tools (`compute.ts`).
 *
 * @module
 */
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/** Largest output of a compute tool, in bytes (1 MiB). */
export const MAX_COMPUTE_OUTPUT_BYTES = 1024 * 1024;

/**
 * Return `output`, or refuse it when it is over 1 MiB.
 *
 * @param tool the tool, for the message
 * @param output the text
 * @returns `output`
 * @throws {ToolFailure} `failed` when over the limit
 *
 * @example
 * ```ts
 * import { capOutput } from "./_compute_limits.ts";
 * if (capOutput("base64", "aGk=") !== "aGk=") throw new Error("changed");
 * ```
 */
export function capOutput(tool: string, output: string): string {
  const bytes = new TextEncoder().encode(output).length;
  if (bytes > MAX_COMPUTE_OUTPUT_BYTES) {
    throw new ToolFailure(
      "failed",
      `${tool} produced ${bytes} bytes, more than the 1 MiB it may return: give it a smaller input`,
    );
  }
  return output;
}
