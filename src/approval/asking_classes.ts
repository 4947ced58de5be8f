/**
 * The risk classes of a verdict that make it ask.
 *
 * @module
 */
import type { RiskClass, Verdict } from "../danger/verdict.ts";

const CONTAINED: readonly RiskClass[] = ["read", "local_write", "code_execution"];

/**
 * The distinct classes of a verdict's parts that are not contained work (`read`, `local_write`,
 * `code_execution` run without asking at every trust level that runs them, design §3), in the
 * order they first appear. A verdict that asks but names no such part (which the classifier does
 * not produce) gives `["unknown"]`, so that nothing is approved by default.
 *
 * This is the set an approver must cover: at trust level `trusted` it may include a class the
 * operator pre-approved, which only makes approval stricter, never looser.
 *
 * @param verdict the classifier's verdict for one call
 * @returns the asking classes, never empty
 *
 * @example A chained command asks for network only
 * ```ts
 * import { askingClasses } from "./asking_classes.ts";
 * const classes = askingClasses({
 *   decision: "ask",
 *   reason: "curl example.com: network",
 *   parts: [
 *     { riskClass: "read", subject: "ls", targets: [] },
 *     { riskClass: "network", subject: "curl example.com", targets: ["example.com"] },
 *   ],
 * });
 * if (classes.join() !== "network") throw new Error(classes.join());
 * ```
 */
export function askingClasses(verdict: Verdict): RiskClass[] {
  const out: RiskClass[] = [];
  for (const part of verdict.parts) {
    if (CONTAINED.includes(part.riskClass) || out.includes(part.riskClass)) continue;
    out.push(part.riskClass);
  }
  return out.length === 0 ? ["unknown"] : out;
}
