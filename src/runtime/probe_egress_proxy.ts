/**
 * Whether an egress proxy can start on this machine (for `odek doctor`): one is started and
 * closed again.
 *
 * @module
 */
import { EgressProxy } from "../broker/egress_proxy.ts";

/**
 * Start an egress proxy with `allowDomains` and close it.
 *
 * @param allowDomains `network.allowDomains` of the configuration
 * @returns `null` when it started, else the reason it did not
 *
 * @example
 * ```ts
 * import { probeEgressProxy } from "./probe_egress_proxy.ts";
 * const problem = await probeEgressProxy([]);
 * if (problem !== null && typeof problem !== "string") throw new Error("unexpected");
 * ```
 */
export async function probeEgressProxy(allowDomains: readonly string[]): Promise<string | null> {
  try {
    await using _proxy = await EgressProxy.start({ allowDomains: [...allowDomains] });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
