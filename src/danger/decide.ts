/**
 * The policy of design §3: what each risk class gets at each trust level, and the verdict of a
 * whole call.
 *
 * @module
 */
import type { RiskClass, TrustLevel, Verdict, VerdictPart } from "./verdict.ts";

/** Options for {@linkcode decide}. */
export interface DecideOptions {
  /** Classes the operator pre-approves; honoured only at trust level `trusted`. @default [] */
  trustedClasses?: readonly RiskClass[];
}

/** What one part gets: run it, ask the operator, or refuse it. */
export type PartDecision = "allow" | "ask" | "deny";

const CONTAINED: readonly RiskClass[] = ["read", "local_write", "code_execution"];

/** Most severe first: the part named in the reason is the most severe one with the decision. */
const SEVERITY: readonly RiskClass[] = [
  "blocked",
  "destructive",
  "privileged",
  "system_write",
  "unknown",
  "network",
  "code_execution",
  "local_write",
  "read",
];

/**
 * The decision for one risk class: `blocked` is always denied; `untrusted` allows only `read`;
 * `standard` allows the contained classes (`read`, `local_write`, `code_execution`) and asks
 * for the rest; `trusted` is `standard` plus the pre-approved `trustedClasses`.
 *
 * @param riskClass the part's class
 * @param trustLevel the run's trust level
 * @param trustedClasses the classes the operator pre-approves (used at `trusted` only)
 * @returns `allow`, `ask` or `deny`
 * @throws {TypeError} for a trust level outside the schema
 *
 * @example Network asks at standard and runs when pre-approved at trusted
 * ```ts
 * import { decideClass } from "./decide.ts";
 * if (decideClass("network", "standard") !== "ask") throw new Error("network should ask");
 * if (decideClass("network", "trusted", ["network"]) !== "allow") throw new Error("pre-approved");
 * ```
 */
export function decideClass(
  riskClass: RiskClass,
  trustLevel: TrustLevel,
  trustedClasses: readonly RiskClass[] = [],
): PartDecision {
  if (riskClass === "blocked") return "deny";
  switch (trustLevel) {
    case "untrusted":
      return riskClass === "read" ? "allow" : "deny";
    case "standard":
      return CONTAINED.includes(riskClass) ? "allow" : "ask";
    case "trusted":
      return CONTAINED.includes(riskClass) || trustedClasses.includes(riskClass) ? "allow" : "ask";
    default: {
      const unreachable: never = trustLevel;
      throw new TypeError(`Unknown trust level: ${unreachable}`);
    }
  }
}

function describe(part: VerdictPart): string {
  return `${part.subject}: ${part.riskClass}${part.detail ? ` (${part.detail})` : ""}`;
}

/**
 * Decide a call from its parts (design §3): `deny` if any part is denied, else `ask` if any part
 * asks, else `allow`. The reason names the most severe part that drove the decision, as
 * `<sub-command>: <class> (<why>)`, and counts the others with the same decision.
 *
 * @param parts the classifier's parts of the call
 * @param trustLevel the run's trust level
 * @param options the pre-approved classes (for `trusted`)
 * @returns the verdict (the parts unchanged)
 * @throws {TypeError} for a trust level outside the schema
 *
 * @example Deleting outside the workspace asks at standard
 * ```ts
 * import { decide } from "./decide.ts";
 * const verdict = decide([
 *   { riskClass: "read", subject: "ls", targets: [] },
 *   { riskClass: "destructive", subject: "rm -rf ~/projects", targets: ["/home/ada/projects"], detail: "deletes outside the workspace" },
 * ], "standard");
 * if (verdict.decision !== "ask") throw new Error(verdict.decision);
 * if (verdict.reason !== "rm -rf ~/projects: destructive (deletes outside the workspace)") throw new Error(verdict.reason);
 * ```
 */
export function decide(
  parts: VerdictPart[],
  trustLevel: TrustLevel,
  options: DecideOptions = {},
): Verdict {
  const trusted = options.trustedClasses ?? [];
  const decisions = parts.map((part) => decideClass(part.riskClass, trustLevel, trusted));
  const decision: PartDecision = decisions.includes("deny")
    ? "deny"
    : decisions.includes("ask")
    ? "ask"
    : "allow";
  const driving = parts
    .filter((_, i) => decisions[i] === decision)
    .sort((a, b) => SEVERITY.indexOf(a.riskClass) - SEVERITY.indexOf(b.riskClass));
  if (driving.length === 0) return { parts, decision, reason: "nothing to run" };
  let reason = describe(driving[0]);
  if (decision === "deny" && driving[0].riskClass !== "blocked") {
    reason += `; not allowed at trust level ${trustLevel}`;
  }
  const others = driving.length - 1;
  if (others > 0) {
    const one = others === 1;
    const verb = decision === "allow"
      ? (one ? "runs contained" : "run contained")
      : decision === "ask"
      ? (one ? "asks" : "ask")
      : (one ? "is denied" : "are denied");
    reason += `; ${others} more part${one ? "" : "s"} ${verb}`;
  }
  return { parts, decision, reason };
}
