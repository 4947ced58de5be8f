/**
 * The one place that maps errors and run outcomes to process exit codes.
 *
 * | code | meaning |
 * | --- | --- |
 * | 0 | ok |
 * | 1 | error |
 * | 2 | usage |
 * | 4 | budget exhausted (the iteration budget included) |
 * | 5 | stalled: the run kept repeating the same tool calls after a hint |
 * | 130 | interrupted (SIGINT) |
 * | 143 | terminated (SIGTERM) |
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";

/** Exit codes odek uses. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  budget: 4,
  stalled: 5,
  interrupted: 130,
  terminated: 143,
} as const;

/**
 * The exit code for an error that reached the CLI.
 *
 * @example
 * ```ts
 * import { exitCodeFor } from "./exit_code.ts";
 * import { OdekError } from "../_util/odek_error.ts";
 * if (exitCodeFor(new OdekError("USAGE", "bad flag")) !== 2) throw new Error("usage must be 2");
 * ```
 */
export function exitCodeFor(error: unknown): number {
  if (!(error instanceof OdekError)) return EXIT.error;
  switch (error.code) {
    case "USAGE":
      return EXIT.usage;
    case "BUDGET_EXCEEDED":
      return EXIT.budget;
    case "STALLED":
      return EXIT.stalled;
    case "INTERRUPTED":
      return EXIT.interrupted;
    default:
      return EXIT.error;
  }
}
