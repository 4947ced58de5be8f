/**
 * Generated session ids.
 *
 * @module
 */

/**
 * Make a new session id `YYYYMMDD-HHMMSS-<6 hex>` from the UTC time and 24 random bits, so ids
 * sort by creation time. The result always passes {@linkcode validateSessionId}.
 *
 * @param now the creation time
 * @returns the id, e.g. `20260728-193905-a1b2c3`
 *
 * @example Shape of an id
 * ```ts
 * import { generateSessionId } from "./generate_session_id.ts";
 * const id = generateSessionId(new Date("2026-07-28T19:39:05Z"));
 * if (!/^20260728-193905-[0-9a-f]{6}$/.test(id)) throw new Error(id);
 * ```
 */
export function generateSessionId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  const random = crypto.getRandomValues(new Uint8Array(3));
  const hex = Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${stamp}-${hex}`;
}
