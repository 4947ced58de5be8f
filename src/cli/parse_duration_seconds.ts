/**
 * Durations on the command line: `90`, `90s`, `5m`, `2h` (and `1h30m`-style combinations).
 *
 * @module
 */

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };

/**
 * Parse a duration into whole seconds. A bare number is seconds; `s`, `m` and `h` parts may be
 * combined in that order of size (`1h30m`). `0` means off where a flag allows it.
 *
 * @param text the flag value
 * @returns whole seconds (fractions rounded up: a limit never gets shorter than asked)
 * @throws {SyntaxError} when `text` is not such a duration
 *
 * @example
 * ```ts
 * import { parseDurationSeconds } from "./parse_duration_seconds.ts";
 * const all = ["90", "90s", "5m", "2h", "1h30m"].map(parseDurationSeconds);
 * if (all.join() !== "90,90,300,7200,5400") throw new Error(all.join());
 * ```
 */
export function parseDurationSeconds(text: string): number {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const parts = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(trimmed);
  if (!parts || trimmed === "") {
    throw new SyntaxError(
      `"${text}" is not a duration: use seconds (90), or a number with s, m or h (90s, 5m, 2h)`,
    );
  }
  const [, h = "0", m = "0", s = "0"] = parts;
  return Math.ceil(
    Number(h) * UNIT_SECONDS.h + Number(m) * UNIT_SECONDS.m + Number(s) * UNIT_SECONDS.s,
  );
}
