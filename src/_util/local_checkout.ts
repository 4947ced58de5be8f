/**
 * Where odek's own files are when it is used as a library: this release runs its tool children
 * from a local checkout (imported by file path), never from a registry or a web server.
 *
 * @module
 */
import { OdekError } from "./odek_error.ts";

/**
 * The checkout a module of odek was loaded from: the directory two levels above
 * `src/<folder>/<file>.ts`, which holds `main.ts` and `tools/`.
 *
 * @param moduleUrl the `import.meta.url` of a module in a folder of `src/`
 * @returns the checkout's absolute path, without a trailing slash
 * @throws {OdekError} `SANDBOX_UNAVAILABLE` when the URL is not a `file:` URL (odek was imported
 *   from a registry or over HTTP): its tool children are Deno programs started from files on
 *   disk, which such an import does not have
 *
 * @example A checkout, and an import over HTTP
 * ```ts
 * import { localCheckout } from "./local_checkout.ts";
 * if (localCheckout("file:///opt/odek/src/runtime/create_runtime.ts") !== "/opt/odek") throw new Error("path");
 * try {
 *   localCheckout("http://127.0.0.1:8000/src/runtime/create_runtime.ts");
 *   throw new Error("accepted");
 * } catch (error) {
 *   if ((error as { code?: string }).code !== "SANDBOX_UNAVAILABLE") throw error;
 * }
 * ```
 */
export function localCheckout(moduleUrl: string): string {
  const url = new URL(moduleUrl);
  if (url.protocol !== "file:") {
    throw new OdekError(
      "SANDBOX_UNAVAILABLE",
      `Cannot sandbox tools: odek was imported from ${moduleUrl}, but its tool children run from a local checkout (tools/ on disk). Clone the odek repository, run "deno task setup" in it, and import <checkout>/src/mod.ts by file path (see docs/library.md).`,
    );
  }
  // Not node:url's fileURLToPath: loading the Node layer would cost `odek --version` ~20 ms.
  return decodeURIComponent(new URL("../..", url).pathname).replace(/\/$/, "");
}
