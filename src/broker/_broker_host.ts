/**
 * What a session host's broker sets up once, before its first program (private to `broker/`):
 * the private scratch every program gets as `TMPDIR`, and the network namespace they share
 * (with the granted host ports forwarded into it). Closed with the broker.
 *
 * @module
 */
import { createHostScratch, type HostScratch } from "./host_scratch.ts";
import { HostNetwork } from "./host_network.ts";
import type { SandboxContext } from "./render_sandbox.ts";

/** Options for {@linkcode openBrokerHost}. */
export interface BrokerHostOptions {
  context: Omit<SandboxContext, "workspace">;
  /** Where the scratch is created. */
  tmpDir: string;
  /** Whether programs share one network namespace. */
  sharedNetwork: boolean;
  /** Host ports forwarded into the shared namespace. */
  hostPorts: readonly number[];
}

/** The set-up parts; `warnings` says what could not be set up. */
export interface BrokerHost {
  scratch: HostScratch | null;
  network: HostNetwork | null;
  warnings: string[];
  close(): Promise<void>;
}

/**
 * Set up a host's scratch and network namespace. Never throws: what fails is a warning, and
 * programs then get a read-only `/tmp` only, or a namespace of their own.
 *
 * @param options the machine's context, the temp directory, the network wishes
 * @returns the parts
 */
export async function openBrokerHost(options: BrokerHostOptions): Promise<BrokerHost> {
  const warnings: string[] = [];
  const { context } = options;
  let scratch: HostScratch | null = null;
  try {
    scratch = await createHostScratch(options.tmpDir);
  } catch (error) {
    warnings.push(
      `cannot create the private scratch directory in ${options.tmpDir} (${
        (error as Error).message
      }): programs have no writable TMPDIR`,
    );
  }
  let network: HostNetwork | null = null;
  const sandboxed = context.mode === "bwrap" && context.bwrapPath !== null;
  if (sandboxed && options.sharedNetwork) {
    const started = await HostNetwork.start({
      bwrapPath: context.bwrapPath!,
      denoPath: context.denoPath,
      toolsDir: context.toolsDir,
      hostPorts: options.hostPorts,
      ...(scratch ? { socketDir: scratch.sockets } : {}),
    });
    if (started instanceof HostNetwork) network = started;
    else {
      warnings.push(
        `programs of this session do not share a loopback: ${started.reason}. Each command has a network namespace of its own, so a server started with bg_start cannot be reached from a later shell call${
          options.hostPorts.length > 0 ? ", and the granted host ports are unreachable" : ""
        }`,
      );
    }
  } else if (options.hostPorts.length > 0) {
    warnings.push(
      `host ports ${options.hostPorts.join(", ")} are not forwarded: ${
        sandboxed ? "programs do not share a network namespace" : `sandbox is "${context.mode}"`
      }`,
    );
  }
  return {
    scratch,
    network,
    warnings,
    async close() {
      await network?.close();
      await scratch?.remove();
    },
  };
}

/**
 * A context with the host's scratch and network namespace (when its holder still runs: a dead
 * holder's pid may belong to another process now, so programs then get namespaces of their own).
 *
 * @param host the host's parts
 * @param context the broker's context
 * @returns the context programs of this host are rendered with
 */
export function hostContextOf(
  host: BrokerHost,
  context: Omit<SandboxContext, "workspace">,
): Omit<SandboxContext, "workspace"> {
  const network = host.network !== null && host.network.alive ? host.network : null;
  return {
    ...context,
    ...(host.scratch ? { scratchDir: host.scratch.dir, scratchRoot: host.scratch.root } : {}),
    ...(network ? { netns: { enter: network.enter, ino: network.ino } } : {}),
  };
}
