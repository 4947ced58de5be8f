/**
 * The containment layers `odek doctor` reports beyond bwrap itself (private to `cli/`): the egress
 * guard (the runtime starts an egress proxy and closes it again), the seccomp filter, the process limit and
 * the hidden root secrets (from `describeSandboxLayers`).
 *
 * @module
 */
import { describeSandboxLayers } from "../broker/describe_sandbox_layers.ts";
import { probeEgressProxy } from "../runtime/probe_egress_proxy.ts";
import type { SandboxContext } from "../broker/render_sandbox.ts";
import type { DoctorLayer } from "./doctor_report.ts";

/** What {@linkcode probeContainmentLayers} finds. */
export interface ContainmentLayers {
  egressGuard: DoctorLayer;
  seccomp: DoctorLayer;
  pidsLimit: DoctorLayer;
  rootSecrets: DoctorLayer;
}

/**
 * Probe the layers of a bwrap (or docker) configuration.
 *
 * @param base the sandbox context odek would run with
 * @param allowDomains `network.allowDomains` of the config
 * @param mode the configured sandbox
 * @returns one layer each; never throws (a failure is an `unavailable` layer with the reason)
 */
export async function probeContainmentLayers(
  base: Omit<SandboxContext, "workspace">,
  allowDomains: readonly string[],
  mode: "bwrap" | "docker" | "none",
): Promise<ContainmentLayers> {
  let egressGuard: DoctorLayer;
  const problem = await probeEgressProxy(allowDomains);
  if (problem === null) {
    egressGuard = {
      status: mode === "none" ? "inactive" : "active",
      detail:
        `an approved network part leaves only through odek's egress proxy (refuses every address that is not globally reachable, and this machine's own)${
          allowDomains.length > 0 ? `, allow-list: ${allowDomains.join(", ")}` : ""
        }${mode === "none" ? ' (sandbox "none": programs are not proxied)' : ""}`,
    };
  } else {
    egressGuard = {
      status: "unavailable",
      detail:
        `the egress proxy did not start (${problem}): approved network gets none. Check that the temp directory is writable.`,
    };
  }
  const layers = await describeSandboxLayers(base);
  const find = (name: string) => layers.find((l) => l.name === name);
  const asLayer = (name: string, missing: string): DoctorLayer => {
    const layer = find(name);
    if (!layer) return { status: "unavailable", detail: missing };
    return { status: layer.active ? "active" : "unavailable", detail: layer.detail };
  };
  const needsBwrap = mode === "none" ? 'not used: sandbox is "none"' : "needs a working bwrap";
  return {
    egressGuard,
    seccomp: asLayer("seccomp filter", needsBwrap),
    pidsLimit: asLayer("process limit", needsBwrap),
    rootSecrets: asLayer("root secrets hidden", needsBwrap),
  };
}
