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
export const TrustLevelSchema: z.ZodType<TrustLevel> = z.enum(["untrusted", "standard", "trusted"]);

/**
 * Trust level of a run or sub-agent (design §3): `untrusted` (reads only), `standard` (contained
 * work runs without asking; network, writes outside the workspace and the like ask), `trusted`
 * (the operator pre-approves named classes).
 *
 * @example Open read-only sessions
 * ```ts
 * import type { TrustLevel } from "./trust_level.ts";
 * const trust: TrustLevel = "untrusted";
 * if (trust !== "untrusted") throw new Error("unreachable");
 * ```
 */
export type TrustLevel = "untrusted" | "standard" | "trusted";
