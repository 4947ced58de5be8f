/**
 * Per-phase timing of a step (docs/performance.md, "A step"): with `ODEK_PROFILE_STEPS=1` each
 * phase of each step is recorded as a `performance.measure` named `odek-step:<phase>`, and odek
 * prints the medians per phase on stderr when it exits (`main.ts`). Off (the default), a phase
 * costs one boolean test: nothing is recorded, so a long session keeps no entries.
 *
 * @module
 */

const ON = (() => {
  try {
    return Deno.env.get("ODEK_PROFILE_STEPS") === "1";
  } catch {
    return false; // no env permission (a test, a library host): never on
  }
})();

/** The prefix of every step phase's measure. */
export const STEP_PHASE_PREFIX = "odek-step:";

/**
 * The start of a phase: pass it to {@linkcode endPhase}.
 *
 * @returns `performance.now()` in milliseconds while profiling is on, else 0
 *
 * @example
 * ```ts
 * import { endPhase, startPhase } from "./step_phase.ts";
 * const start = startPhase();
 * endPhase("example", start);
 * ```
 */
export function startPhase(): number {
  return ON ? performance.now() : 0;
}

/**
 * Record the phase `name` (e.g. `journal:tool_started`) from `start` to now, while profiling is
 * on; otherwise do nothing.
 *
 * @param name the phase
 * @param start what {@linkcode startPhase} returned
 *
 * @example
 * ```ts
 * import { endPhase, startPhase } from "./step_phase.ts";
 * const start = startPhase();
 * endPhase("example", start);
 * ```
 */
export function endPhase(name: string, start: number): void {
  if (ON) performance.measure(`${STEP_PHASE_PREFIX}${name}`, { start, end: performance.now() });
}

/**
 * The step phases recorded so far, one line per phase: count, median, total (ms).
 *
 * @returns the lines, slowest median first (empty while profiling is off)
 *
 * @example
 * ```ts
 * import { stepPhaseSummary } from "./step_phase.ts";
 * if (!Array.isArray(stepPhaseSummary())) throw new Error("lines");
 * ```
 */
export function stepPhaseSummary(): string[] {
  const byName = new Map<string, number[]>();
  for (const entry of performance.getEntriesByType("measure")) {
    if (!entry.name.startsWith(STEP_PHASE_PREFIX)) continue;
    const list = byName.get(entry.name) ?? [];
    list.push(entry.duration);
    byName.set(entry.name, list);
  }
  const rows = [...byName].map(([name, durations]) => {
    const sorted = [...durations].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    const total = durations.reduce((a, b) => a + b, 0);
    return { name, count: durations.length, median, total };
  });
  rows.sort((a, b) => b.median - a.median);
  return rows.map((r) =>
    `${r.name} n=${r.count} median ${r.median.toFixed(2)} ms total ${r.total.toFixed(1)} ms`
  );
}
