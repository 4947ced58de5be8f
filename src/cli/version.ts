/**
 * odek's version. Kept equal to `deno.json`'s `version` by a test; a plain constant so that
 * `odek --version` loads nothing else.
 *
 * @module
 */

/**
 * The odek version (semver).
 *
 * @example
 * ```ts
 * import { ODEK_VERSION } from "./version.ts";
 * if (!/^\d+\.\d+\.\d+/.test(ODEK_VERSION)) throw new Error(ODEK_VERSION);
 * ```
 */
export const ODEK_VERSION = "0.1.0";
