/**
 * The tool-child pools of one broker (private to `broker/`): the file-tool children, the compute
 * child, the web child and the library tools' module children.
 *
 * @module
 */
import { join } from "node:path";
import { ModuleToolPools } from "./_module_tools.ts";
import type { PermissionSet } from "./permission_set.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import type { SandboxBrokerOptions } from "./sandbox_broker_options.ts";
import { ToolChildPool } from "./tool_child_pool.ts";
import { type StdioServerProcess, StdioServers, type StdioServerSpec } from "./stdio_server.ts";

/** The scope of every compute call: nothing at all. */
export const NO_PERMISSIONS: PermissionSet = {
  readPaths: [],
  writePaths: [],
  network: { type: "none" },
  runBinaries: [],
  envNames: [],
};

/** A web call may take 120 s (its own timeout) plus the child's start: then its child is killed. */
const WEB_CALL_TIMEOUT_MS = 150_000;

/** A broker's pools. */
export interface BrokerPools {
  files: ToolChildPool;
  /** The compute child (no permissions; `tools/compute.ts`). */
  compute: ToolChildPool;
  web: ToolChildPool;
  /** The module-tool children of library tools, one pool per tool (`_module_tools.ts`). */
  modules: ModuleToolPools;
  /**
   * Start an MCP stdio server in its sandbox for `workspace` (`stdio_server.ts`): its namespace is
   * its own, like a tool child's, so it reaches the proxy without a per-call credential.
   */
  startServer(spec: StdioServerSpec, workspace: string): Promise<StdioServerProcess>;
  /**
   * Start a sub-agent's loop process (`odek subagent`): unsandboxed by bwrap (its Deno has no
   * permission at all), in a process group of its own, its environment only `spec.env` and the
   * base set, stopped with the servers.
   */
  startSubagent(spec: StdioServerSpec, workspace: string): Promise<StdioServerProcess>;
  /** Stop every child of every pool and every server. */
  close(): Promise<void>;
}

/**
 * Open the pools (no child starts before its first call).
 *
 * @param options the broker's options (timeouts, the egress proxy)
 * @param context the broker's context, with the credentialed egress socket when there is a proxy
 */
export function openBrokerPools(
  options: SandboxBrokerOptions,
  context: Omit<SandboxContext, "workspace">,
): BrokerPools {
  // odek's own web child and library tools reach the proxy without a per-call credential: each
  // child's namespace is its own, so nothing else can use its forwarder.
  const ownNamespace = options.egress
    ? { ...options.context, egressSocket: options.egress.trustedSocketPath }
    : options.context;
  const files = new ToolChildPool({ context, callTimeoutMs: options.fileCallTimeoutMs });
  const compute = new ToolChildPool({
    context,
    entry: join(options.context.toolsDir, "compute.ts"),
    callTimeoutMs: options.computeCallTimeoutMs ?? 30_000,
    permissions: "none",
  });
  const web = new ToolChildPool({
    context: ownNamespace,
    entry: join(options.context.toolsDir, "web.ts"),
    callTimeoutMs: WEB_CALL_TIMEOUT_MS,
  });
  const modules = new ModuleToolPools(ownNamespace);
  const servers = new StdioServers();
  return {
    files,
    compute,
    web,
    modules,
    startServer: (spec, workspace) => servers.start(spec, { ...ownNamespace, workspace }),
    startSubagent: (spec, workspace) =>
      servers.start(spec, { ...options.context, mode: "none", workspace }),
    close: async () => {
      await Promise.all([
        servers.close(),
        files.close(),
        compute.close(),
        web.close(),
        modules.close(),
      ]);
    },
  };
}
