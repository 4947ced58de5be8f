/**
 * Classes that a sweeping approval (bare `--yes`, "always for this class in this run") never
 * covers: each such call must be approved on its own (design §3, odek-go §5.2).
 *
 * @module
 */
import type { RiskClass } from "../danger/verdict.ts";

/** `destructive`, `privileged`, `unknown` and `blocked`. */
export const NEVER_SWEPT: readonly RiskClass[] = [
  "destructive",
  "privileged",
  "unknown",
  "blocked",
];
