/**
 * The one root every path into odek's checkout is computed from (`tools/` children, `web/`,
 * `node_modules`, `deno.json`). From source it is the checkout this module was loaded from; the
 * installed command's bundle lives outside the checkout, so its entry (`src/bundle_main.ts`) sets
 * the root it was built from before anything asks. No module computes a checkout path from its own
 * `import.meta.url`.
 *
 * @module
 */
import { localCheckout } from "./local_checkout.ts";

let root: string | undefined;

/**
 * Use `dir` as the checkout from now on (the bundle's entry calls this once, first).
 *
 * @param dir the checkout's absolute path
 * @throws {TypeError} when `dir` is not absolute
 */
export function useCheckoutRoot(dir: string): void {
  if (!dir.startsWith("/")) throw new TypeError(`the checkout root must be absolute, got ${dir}`);
  root = dir.replace(/\/+$/, "");
}

/**
 * The checkout odek runs from: the directory with `main.ts`, `tools/`, `web/` and `deno.json`.
 *
 * @returns its absolute path, without a trailing slash
 * @throws {OdekError} `SANDBOX_UNAVAILABLE` when odek was imported from a registry or over HTTP
 *   (see {@linkcode localCheckout})
 *
 * @example From source, the checkout holds main.ts
 * ```ts
 * import { checkoutRoot } from "./checkout_root.ts";
 * if (!Deno.statSync(`${checkoutRoot()}/main.ts`).isFile) throw new Error("no main.ts");
 * ```
 */
export function checkoutRoot(): string {
  return root ??= localCheckout(import.meta.url);
}
