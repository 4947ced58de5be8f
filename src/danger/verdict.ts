/**
 * Risk classes, trust levels and the verdict the classifier returns for one tool call
 * (design §3). The verdict is the input of {@linkcode derivePermissions}.
 *
 * @module
 */
import { z } from "zod";
import { RISK_CLASSES } from "../../tools/_catalogue/tool_entry.ts";

/** Risk class of one part of a call (design §3; the list is the catalogue's `RISK_CLASSES`). */
export const RiskClassSchema = z.enum(RISK_CLASSES);
/** Risk class of one part of a call. */
export type RiskClass = z.infer<typeof RiskClassSchema>;

export { type TrustLevel, TrustLevelSchema } from "../config/trust_level.ts";

/** One part of a call: a sub-command or file operation with its class and targets. */
export interface VerdictPart {
  riskClass: RiskClass;
  /** The sub-command or operation that produced this part, e.g. `rm -rf build` or `write_file`. */
  subject: string;
  /** Absolute paths (or hosts for `network`) this part touches. */
  targets: string[];
  /** Why the part has its class, e.g. `deletes outside the workspace` (set by the classifier). */
  detail?: string;
}

/** The classifier's verdict on a whole call. */
export interface Verdict {
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
