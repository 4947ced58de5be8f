/**
 * Trust level of a run or sub-agent (design §3): an operator setting, so it lives in config; the
 * policy that applies it lives in `danger/`.
 *
 * @module
 */
import { z } from "zod";

/**
 * `untrusted` (reads only), `standard` (contained work runs without asking), `trusted` (the
 * operator pre-approves named classes).
 *
 * @example
 * ```ts
 * import { TrustLevelSchema } from "./trust_level.ts";
 * if (TrustLevelSchema.parse("standard") !== "standard") throw new Error("parse");
 * ```
 */
export const TrustLevelSchema = z.enum(["untrusted", "standard", "trusted"]);
/** Trust level of a run or sub-agent. */
export type TrustLevel = z.infer<typeof TrustLevelSchema>;
