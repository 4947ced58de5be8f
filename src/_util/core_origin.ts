/**
 * What odek's core runs from: the installed command's bundle, or the checkout's sources — and why
 * the sources when a bundle was installed (it was out of date). The bundle's entry
 * (`src/bundle_main.ts`) records it; `odek doctor` reports it. Kept on `globalThis` under a
 * registered symbol: an out-of-date bundle runs the sources as a second module graph in the same
 * process, whose own copy of this module must see what the bundle's entry recorded.
 *
 * @module
 */

/** Where the core's code comes from. */
export interface CoreOrigin {
  /** `bundle`: the installed bundle; `sources`: the checkout's modules. */
  runs: "bundle" | "sources";
  /** The bundle's folder, when one was installed (it runs, or it was out of date). */
  bundle?: string;
  /** Why an installed bundle does not run (a changed source file, another deno). */
  stale?: string;
}

/** The `globalThis` key (a registered symbol, the same in every module graph). */
export const CORE_ORIGIN_KEY: unique symbol = Symbol.for("odek.core-origin") as never;

/**
 * Record what the core runs from (the bundle's entry, once, before odek starts).
 *
 * @param origin what runs, the bundle's folder, and why it does not run if it does not
 */
export function recordCoreOrigin(origin: CoreOrigin): void {
  (globalThis as Record<symbol, unknown>)[CORE_ORIGIN_KEY] = { ...origin };
}

/**
 * What the core runs from: what the bundle's entry recorded, else the sources (`deno run`,
 * `deno task`, a launcher installed with `--no-bundle`).
 *
 * @returns the origin (a copy)
 *
 * @example Under deno run or deno test, the sources
 * ```ts
 * import { coreOrigin } from "./core_origin.ts";
 * if (coreOrigin().runs !== "sources") throw new Error(JSON.stringify(coreOrigin()));
 * ```
 */
export function coreOrigin(): CoreOrigin {
  const recorded = (globalThis as Record<symbol, unknown>)[CORE_ORIGIN_KEY] as
    | CoreOrigin
    | undefined;
  return recorded ? { ...recorded } : { runs: "sources" };
}
