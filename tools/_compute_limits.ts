/**
 * Input and output limits shared by the compute tools (`compute.ts`).
 *
 * @module
 */
import { z } from "zod";
import { ToolFailure } from "./_protocol.ts";

/** Largest text input of a compute tool, in bytes (1 MiB). */
export const MAX_COMPUTE_INPUT_BYTES = 1024 * 1024;
/** Largest output of a compute tool, in bytes (1 MiB). */
export const MAX_COMPUTE_OUTPUT_BYTES = 1024 * 1024;

/**
 * A string argument of at most 1 MiB of UTF-8.
 *
 * @param what the argument's name, for the message
 * @returns the zod schema
 *
 * @example
 * ```ts
 * import { boundedText } from "./_compute_limits.ts";
 * if (!boundedText("text").safeParse("hi").success) throw new Error("refused");
 * ```
 */
export function boundedText(what: string): z.ZodString {
  return z.string().refine(
    (s) =>
      s.length <= MAX_COMPUTE_INPUT_BYTES &&
      new TextEncoder().encode(s).length <= MAX_COMPUTE_INPUT_BYTES,
    { message: `${what} is larger than 1 MiB` },
  ) as unknown as z.ZodString;
}

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
