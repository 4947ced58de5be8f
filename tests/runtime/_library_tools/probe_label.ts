/**
 * A local import of `probe_scope.ts` (test fixture).
 *
 * @module
 */

/** @returns the probe's label */
export function label(): string {
  return "probe";
}
