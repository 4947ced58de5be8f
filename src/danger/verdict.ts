/**
 * Risk classes, trust levels and the verdict the classifier returns for one tool call
 * (design §3). The verdict is the input of {@linkcode derivePermissions}.
 *
 * @module
 */
import { z } from "zod";
import { RISK_CLASSES, type RiskClass } from "../../tools/_catalogue/tool_entry.ts";
import type { DenyRule } from "../config/deny_rule.ts";

/** Risk class of one part of a call (design §3; the list is the catalogue's `RISK_CLASSES`). */
export const RiskClassSchema: z.ZodEnum<{ [K in RiskClass]: K }> = z.enum(RISK_CLASSES);
export type { RiskClass };

export { type TrustLevel, TrustLevelSchema } from "../config/trust_level.ts";

/**
 * One part of a call: a sub-command or file operation with its class and targets.
 *
 * @example A write outside the workspace
 * ```ts
 * import type { VerdictPart } from "./verdict.ts";
 * const part: VerdictPart = {
 *   riskClass: "system_write",
 *   subject: "echo x >> ~/.bashrc",
 *   targets: ["/home/ada/.bashrc"],
 *   detail: "writes a shell startup file",
 * };
 * if (part.targets.length !== 1) throw new Error("targets");
 * ```
 */
export interface VerdictPart {
  /** What the part does (design §3). */
  riskClass: RiskClass;
  /** The sub-command or operation that produced this part, e.g. `rm -rf build` or `write_file`. */
  subject: string;
  /** Absolute paths (or hosts for `network`) this part touches. */
  targets: string[];
  /** Why the part has its class, e.g. `deletes outside the workspace` (set by the classifier). */
  detail?: string;
  /** The deny rule that blocked it (its pattern, layer and file), for a part a rule added. */
  denyRule?: DenyRule;
}

/**
 * The classifier's verdict on a whole call.
 *
 * @example A verdict that asks
 * ```ts
 * import type { Verdict } from "./verdict.ts";
 * const verdict: Verdict = {
 *   parts: [{ riskClass: "network", subject: "curl", targets: ["127.0.0.1"] }],
 *   decision: "ask",
 *   reason: "curl reaches the network",
 * };
 * if (verdict.decision !== "ask") throw new Error("decision");
 * ```
 */
export interface Verdict {
  /** Every part of the call, each with its class and targets. */
  parts: VerdictPart[];
  /** `deny` if any part is denied, else `ask` if any part asks, else `allow`. */
  decision: "allow" | "ask" | "deny";
  /** Human- and model-readable reason naming the part that drove the decision. */
  reason: string;
  /**
   * Set when only a person may approve this call, each time (a write to a file the host runs
   * later): no `--yes`, trusted class or earlier "always" covers it. Says why. @default unset
   */
  askEveryTime?: string;
}
