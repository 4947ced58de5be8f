/**
 * What `odek doctor` shows about the containment layers of this machine's sandbox.
 *
 * @module
 */
import { findPidsCgroup } from "./find_pids_cgroup.ts";
import { DEFAULT_MAX_PROCESSES, type SandboxContext } from "./render_sandbox.ts";

/** One containment layer and whether it is active here. */
export interface SandboxLayer {
  /** e.g. `process limit`. */
  name: string;
  active: boolean;
  /** What it does here, or why it is off and what to do. */
  detail: string;
}

/**
 * Describe the layers a sandbox context provides (see docs/security.md): bwrap, the seccomp
 * filter, the process limit (with {@linkcode findPidsCgroup}'s reason when there is none) and
 * the hidden root-only secrets. Needs `--allow-run=bash` for the cgroup probe when the context
 * has no pids cgroup. Never throws.
 *
 * @param context the context `sandboxContextFromEnvironment` built
 * @returns one entry per layer, in the order a sandbox applies them
 *
 * @example Without bwrap nothing but the Deno flags is active
 * ```ts
 * import { describeSandboxLayers } from "./describe_sandbox_layers.ts";
 * const layers = await describeSandboxLayers({ mode: "none", bwrapPath: null, denoPath: "/usr/bin/deno",
 *   denoDir: "/d", toolsDir: "/t", home: "/h", odekHome: "/o", installDir: "/i", protectedRoots: [],
 *   readOnlyHomeFiles: [] });
 * if (layers.find((l) => l.name === "bwrap")?.active !== false) throw new Error("bwrap shown active");
 * ```
 */
export async function describeSandboxLayers(
  context: Omit<SandboxContext, "workspace">,
): Promise<SandboxLayer[]> {
  const bwrap = context.mode === "bwrap" && context.bwrapPath !== null;
  const layers: SandboxLayer[] = [{
    name: "bwrap",
    active: bwrap,
    detail: bwrap
      ? `${context.bwrapPath}: mount, pid, network (lo only), ipc, uts and cgroup namespaces; every capability dropped`
      : context.mode === "none"
      ? 'sandbox is "none": programs run unconfined'
      : 'bwrap is not installed: programs are refused (run "apt-get install bubblewrap")',
  }];
  if (!bwrap) return layers;
  layers.push({
    name: "seccomp filter",
    active: Boolean(context.seccompFile),
    detail: context.seccompFile
      ? "no Unix-domain sockets, io_uring, keyring calls or foreign syscall ABI"
      : `no filter for ${Deno.build.arch}: socket files on / stay reachable`,
  });
  const max = context.maxProcesses ?? DEFAULT_MAX_PROCESSES;
  let limit = `${max} processes and threads per shell sandbox (pids cgroup ${context.pidsCgroup})`;
  if (!context.pidsCgroup) {
    const probe = await findPidsCgroup();
    limit = `no process limit: ${
      probe.type === "unavailable" ? probe.reason : "the context has no pids cgroup"
    }`;
  }
  layers.push({ name: "process limit", active: Boolean(context.pidsCgroup), detail: limit });
  const hidden = [...(context.hiddenPaths?.dirs ?? []), ...(context.hiddenPaths?.files ?? [])];
  layers.push({
    name: "root secrets hidden",
    active: hidden.length > 0,
    detail: hidden.length > 0
      ? `odek runs as root: ${hidden.join(", ")} hidden`
      : "none hidden (odek does not run as root, or none exist)",
  });
  return layers;
}
