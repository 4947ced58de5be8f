/**
 * What an interactive approver remembers during one run: "always for this class" grants and
 * recent approvals, for the friction rule.
 *
 * @module
 */
import type { RiskClass } from "../danger/verdict.ts";
import { NEVER_SWEPT } from "./_sweeping_classes.ts";

/** Options for {@linkcode ApprovalMemory}. */
export interface ApprovalMemoryOptions {
  /** The clock, in ms since the epoch. @default Date.now */
  now?: () => number;
  /** Approvals of one class within the window after which the next one needs friction. @default 3 */
  frictionAfter?: number;
  /** The friction window in ms. @default 60_000 */
  frictionWindowMs?: number;
}

/**
 * Per-run approval state (odek-go §5.2). Pure apart from the injected clock; one instance per
 * run, never shared between runs.
 *
 * - **Grants**: "always for this class in this run". Never possible for `destructive`,
 *   `privileged`, `unknown` or `blocked` ({@linkcode ApprovalMemory.canGrant}).
 * - **Friction**: after `frictionAfter` (3) approvals of one class within `frictionWindowMs`
 *   (60 s), the next approval of that class needs the word `approve` typed
 *   ({@linkcode ApprovalMemory.needsFriction}). Approvals older than the window are forgotten.
 *
 * @example Three network approvals in a minute make the fourth one need friction
 * ```ts
 * import { ApprovalMemory } from "./approval_memory.ts";
 * let t = 0;
 * const memory = new ApprovalMemory({ now: () => t });
 * for (let i = 0; i < 3; i++) { memory.recordApproval(["network"]); t += 1_000; }
 * if (!memory.needsFriction(["network"])) throw new Error("expected friction");
 * t += 60_000;
 * if (memory.needsFriction(["network"])) throw new Error("window passed");
 * ```
 */
export class ApprovalMemory {
  readonly #now: () => number;
  readonly #after: number;
  readonly #windowMs: number;
  readonly #granted = new Set<RiskClass>();
  readonly #approvals = new Map<RiskClass, number[]>();

  /**
   * @param options clock and friction thresholds
   * @throws {RangeError} if `frictionAfter` is not a positive integer or `frictionWindowMs` is negative
   */
  constructor(options: ApprovalMemoryOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#after = options.frictionAfter ?? 3;
    this.#windowMs = options.frictionWindowMs ?? 60_000;
    if (!Number.isInteger(this.#after) || this.#after < 1) {
      throw new RangeError(`frictionAfter must be a positive integer, got ${this.#after}`);
    }
    if (!(this.#windowMs >= 0)) {
      throw new RangeError(`frictionWindowMs must be >= 0 ms, got ${this.#windowMs}`);
    }
  }

  /**
   * Whether "always for this class" may be offered: not for `destructive`, `privileged`,
   * `unknown` or `blocked`.
   *
   * @param classes the call's asking classes
   * @returns true if every class may be granted (and the list is not empty)
   */
  canGrant(classes: readonly RiskClass[]): boolean {
    return classes.length > 0 && classes.every((c) => !NEVER_SWEPT.includes(c));
  }

  /**
   * Grant classes for the rest of the run.
   *
   * @param classes the classes the operator approved "always"
   * @throws {RangeError} if a class may not be granted (see {@linkcode ApprovalMemory.canGrant})
   */
  grant(classes: readonly RiskClass[]): void {
    if (!this.canGrant(classes)) {
      throw new RangeError(
        `Cannot grant [${classes.join(", ")}] for the run: destructive, privileged, unknown and ` +
          `blocked are approved one call at a time`,
      );
    }
    for (const c of classes) this.#granted.add(c);
  }

  /**
   * @param classes the call's asking classes
   * @returns true if every class was granted earlier in this run (false for an empty list)
   */
  isGranted(classes: readonly RiskClass[]): boolean {
    return classes.length > 0 && classes.every((c) => this.#granted.has(c));
  }

  /**
   * Remember that the operator approved a call with these classes, now.
   *
   * @param classes the call's asking classes
   */
  recordApproval(classes: readonly RiskClass[]): void {
    const now = this.#now();
    for (const c of new Set(classes)) this.#approvals.set(c, [...this.#recent(c, now), now]);
  }

  /**
   * @param classes the call's asking classes
   * @returns true if any class was approved `frictionAfter` times or more within the window
   */
  needsFriction(classes: readonly RiskClass[]): boolean {
    const now = this.#now();
    return classes.some((c) => this.#recent(c, now).length >= this.#after);
  }

  #recent(riskClass: RiskClass, now: number): number[] {
    return (this.#approvals.get(riskClass) ?? []).filter((t) => now - t < this.#windowMs);
  }
}
