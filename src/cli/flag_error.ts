/**
 * The usage error for a flag `node:util`'s `parseArgs` refused, in odek's words.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";

/**
 * Turn a `parseArgs` error into an `OdekError` with code `USAGE` (exit code 2). Its message for an
 * unknown option (which suggests `-- "--x"`, with a quote it never closes) becomes `Unknown flag
 * --x`; others are kept, their trailing period dropped.
 *
 * @param error what `parseArgs` threw
 * @param command the subcommand, for the `--help` hint (`run`, `sessions`, …)
 *
 * @example
 * ```ts
 * import { flagError } from "./flag_error.ts";
 * const error = flagError(new TypeError("Unknown option '--bogus'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--bogus\"."), "run");
 * if (error.message !== 'Unknown flag --bogus. Run "odek run --help".') throw new Error(error.message);
 * ```
 */
export function flagError(error: unknown, command: string): OdekError {
  const raw = error instanceof Error ? error.message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(raw);
  const what = unknown ? `Unknown flag ${unknown[1]}` : raw.replace(/[.\s]+$/, "");
  return new OdekError("USAGE", `${what}. Run "odek ${command} --help".`, { cause: error });
}
