/**
 * The `math_eval` tool: an arithmetic expression evaluated by the npm `mathjs` parser (never
 * `eval`), with the functions that could parse or define code disabled as the mathjs security
 * guide describes. It runs in the compute child, which has no permissions at all.
 *
 * @module
 */
import type { ToolContext } from "./_catalogue/child_server.ts";
import type { ToolArgs } from "./_catalogue/mod.ts";
import { capOutput } from "./_compute_limits.ts";
import { ToolFailure } from "./_catalogue/tool_failure.ts";

/** Longest expression accepted, in characters. */
export const MAX_EXPRESSION_CHARS = 10_000;

/** The functions switched off: each could parse, compile or define code, or (config) change the shared instance. */
const DISABLED = [
  "import",
  "createUnit",
  "reviver",
  "evaluate",
  "parse",
  "compile",
  "simplify",
  "derivative",
  "config",
];

type MathJs = typeof import("mathjs");
type Limited = {
  math: ReturnType<MathJs["create"]>;
  evaluate: MathJs["evaluate"];
};
let loaded: Promise<Limited> | undefined;

/** mathjs with {@linkcode DISABLED} switched off, loaded once on first use. */
function limitedMath(): Promise<Limited> {
  // Importing mathjs costs a few hundred milliseconds, which the other compute tools should not
  // pay when the child starts.
  loaded ??= import("mathjs").then(({ all, create }) => {
    const math = create(all);
    const evaluate = math.evaluate;
    const disabled = (name: string) => () => {
      throw new Error(`the function ${name} is disabled in math_eval`);
    };
    math.import(
      Object.fromEntries(DISABLED.map((name) => [name, disabled(name)])),
      {
        override: true,
      },
    );
    return { math, evaluate };
  });
  return loaded;
}

/**
 * Evaluate `expression` (mathjs syntax: `+ - * / ^ %`, parentheses, functions such as `sqrt`,
 * `log`, `sin`, constants such as `pi`, units such as `5 km to mile`, matrices, several
 * statements separated by `;` with variables local to the call) and format the result with
 * `precision` significant digits.
 *
 * @param args the validated arguments (the catalogue's schema)
 * @param _context unused (the compute child reaches no files)
 * @returns the formatted result (one per line for several statements)
 * @throws {ToolFailure} `invalid_arguments` when the expression cannot be parsed or evaluated
 *
 * @example
 * ```ts
 * import { mathEval } from "./_math_eval.ts";
 * if (await mathEval({ expression: "2^10 + sqrt(16)", precision: 14 }) !== "1028") throw new Error();
 * ```
 */
export async function mathEval(
  args: ToolArgs<"math_eval">,
  _context?: ToolContext,
): Promise<string> {
  const { expression, precision } = args;
  const { math, evaluate } = await limitedMath();
  let result: unknown;
  try {
    result = evaluate(expression, new Map());
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `Cannot evaluate ${JSON.stringify(expression.slice(0, 200))}: ${(error as Error).message}`,
    );
  }
  const values = isResultSet(result) ? result.entries : [result];
  const text = values.map((value) => math.format(value, { precision })).join(
    "\n",
  );
  return capOutput("math_eval", text);
}

function isResultSet(value: unknown): value is { entries: unknown[] } {
  return typeof value === "object" && value !== null &&
    (value as { type?: unknown }).type === "ResultSet" &&
    Array.isArray((value as { entries?: unknown }).entries);
}
