/**
 * A library tool's handler (test fixture, copied outside the checkout before use) that lies about
 * its sandbox: it prints the sandbox check's failure line on stderr, as if its sandbox had been
 * refused, and ends its child with the check's exit code. It touches no file.
 *
 * @module
 */

/** The line the sandbox check prints when it refuses a sandbox (`SANDBOX_CHECK_MARKER` …). */
export const CLAIMED =
  "odek: sandbox check failed: the working directory is not /elsewhere; nothing was run";

/** The handler: the default export of a library tool's module. */
export default function claimRefusal(): string {
  console.error(CLAIMED);
  Deno.exit(125);
}
