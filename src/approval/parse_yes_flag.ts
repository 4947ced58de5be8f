/**
 * Parse the value of `--yes` / `--yes=<class>[,<class>…]`.
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import { type RiskClass, RiskClassSchema } from "../danger/verdict.ts";

const APPROVABLE = RiskClassSchema.options.filter((c) => c !== "blocked");

function usage(value: string, why: string): OdekError {
  return new OdekError(
    "USAGE",
    `Invalid --yes value "${value}": ${why}. Use --yes (every ask except destructive, privileged ` +
      `and unknown) or --yes=<class>[,<class>…] with classes from: ${APPROVABLE.join(", ")}`,
  );
}

/**
 * Parse a `--yes` flag value for {@linkcode NonInteractiveApprover}: the bare flag (`true`)
 * means `"all"`; otherwise a comma-separated list of risk classes (spaces around names are
 * ignored, duplicates dropped, order kept). `blocked` can never be approved.
 *
 * @param value `true` for a bare `--yes`, else the text after `=`
 * @returns `"all"` or the listed classes (never empty)
 * @throws {OdekError} code `USAGE` for an empty value, an empty item, an unknown class or
 *   `blocked`; the message lists the valid classes
 *
 * @example Bare flag and a class list
 * ```ts
 * import { parseYesFlag } from "./parse_yes_flag.ts";
 * if (parseYesFlag(true) !== "all") throw new Error("bare --yes");
 * const classes = parseYesFlag("network, system_write");
 * if (JSON.stringify(classes) !== '["network","system_write"]') throw new Error(String(classes));
 * ```
 */
export function parseYesFlag(value: string | true): "all" | RiskClass[] {
  if (value === true) return "all";
  if (typeof value !== "string") {
    throw new TypeError(`parseYesFlag() takes true or a string, got ${typeof value}`);
  }
  if (value.trim() === "") throw usage(value, "no class given");
  const out: RiskClass[] = [];
  for (const item of value.split(",").map((s) => s.trim())) {
    if (item === "") throw usage(value, "an empty class name (check the commas)");
    if (item === "blocked") throw usage(value, "blocked calls can never be approved");
    const parsed = RiskClassSchema.safeParse(item);
    if (!parsed.success) throw usage(value, `"${item}" is not a risk class`);
    if (!out.includes(parsed.data)) out.push(parsed.data);
  }
  return out;
}
