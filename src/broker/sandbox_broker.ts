/**
 * The real {@linkcode ToolBroker}: every call classified, scoped and run in its sandbox.
 *
 * @module
 */
import { SandboxStandby } from "./_sandbox_standby.ts";
import { OdekError } from "../_util/odek_error.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { findBuiltinTool } from "../../tools/_catalogue/mod.ts";
import { withEgressDecision } from "./_egress_refusal.ts";
import type { EgressDecision } from "./egress_proxy.ts";
import type { SandboxBrokerOptions } from "./sandbox_broker_options.ts";
import type { PermissionSet } from "./permission_set.ts";
import { runFileCall } from "./_file_call.ts";
import { runShellCall } from "./_shell_call.ts";
import { type BrokerHost, hostContextOf, openBrokerHost } from "./_broker_host.ts";
import { ProtectedReverts } from "./_protected_reverts.ts";
import { guardedCall } from "./_guarded_call.ts";
import { admitCall, failure } from "./_admit_call.ts";
import { scopeDeriver } from "./_call_scope.ts";
import { type RevertedPath, type WorkspaceFacts, WorkspaceGuard } from "./workspace_guard.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import { BackgroundJobs } from "./background_jobs.ts";
import { runBackgroundTool } from "./_run_background_tool.ts";
import { SandboxRefusals } from "./_sandbox_refusals.ts";
import { type BrokerPools, NO_PERMISSIONS, openBrokerPools } from "./_broker_pools.ts";
import { runModuleCall } from "./_module_call.ts";
import type {
  ModuleTool,
  ProtectedRevert,
  SandboxRefusal,
  ToolBroker,
  ToolInvocation,
  ToolResult,
} from "./tool_broker.ts";
import type { StdioServerProcess, StdioServerSpec } from "./stdio_server.ts";

export type { SandboxBrokerOptions } from "./sandbox_broker_options.ts";

/**
 * Runs built-in tool calls: `fixedVerdict` → `derivePermissions` → the file-tool child for the
 * scope (category `files`), the web tool child for the scope (`http_request`, `browser`), a
 * fresh sandbox (`shell`), or the compute child, which runs with no permissions whatever the
 * verdict (category `compute`); a library tool (`defineTool`, `runModuleTool`) in a module-tool
 * child of its own for the scope. A scope with network reaches the egress proxy. Every failure is
 * data: an unknown tool is `unknown_tool`, bad arguments `invalid_arguments`, an invalid
 * workspace, a `deny` verdict, a `blocked` part or a non-read call in an `untrusted` run `denied`.
 *
 * @example Refuse an unknown tool (nothing is spawned)
 * ```ts
 * import { SandboxBroker } from "./sandbox_broker.ts";
 * const broker = new SandboxBroker({
 *   context: { mode: "none", bwrapPath: null, denoPath: Deno.execPath(), denoDir: "/nonexistent",
 *     toolsDir: "/nonexistent", home: "/nonexistent", odekHome: "/nonexistent", installDir: "/nonexistent",
 *     protectedRoots: [], readOnlyHomeFiles: [] },
 *   resolveWorkspace: () => Promise.resolve("/nonexistent"),
 *   trustLevel: "standard",
 * });
 * const result = await broker.run({ id: "c1", name: "fly", args: {} });
 * await broker.close();
 * if (result.ok || result.error.kind !== "unknown_tool") throw new Error("unexpected");
 * ```
 */
export class SandboxBroker implements ToolBroker {
  #options: SandboxBrokerOptions;
  /** The options' context, with the egress socket when there is a proxy. */
  #context: Omit<SandboxContext, "workspace">;
  /** The tool children: files, compute, web and library tools (`_broker_pools.ts`). */
  #pools: BrokerPools;
  /** One controller per shell command in flight, so close() kills their sandboxes. */
  #shells = new Set<AbortController>();
  /** The next shell sandbox of each scope, started ahead of time (see `_sandbox_standby.ts`). */
  #standby = new SandboxStandby();
  /** Background jobs of this run (`bg_*`): non-detached ones are stopped by close(). */
  #jobs = new BackgroundJobs();
  /** Shell calls in flight per granted write target, so a placeholder outlives every user. */
  #targetUsers = new Map<string, number>();
  /** The scratch and the shared network namespace, set up before the first call. */
  #host: Promise<BrokerHost> | undefined;
  /** The workspace's protected files: bound read-only, reverted after writable calls. */
  #guard: WorkspaceGuard;
  #reverts = new ProtectedReverts();
  /** Calls run so far (a unique key per call for the guard). */
  #calls = 0;
  #closed = false;
  /** Calls refused because a checked path changed (see `onSandboxRefusal`). */
  #refusals = new SandboxRefusals();

  /** @param options context, workspace resolver, trust level and timeouts */
  constructor(options: SandboxBrokerOptions) {
    this.#options = options;
    this.#context = options.egress
      ? { ...options.context, egressSocket: options.egress.socketPath }
      : options.context;
    this.#pools = openBrokerPools(options, this.#context);
    this.#guard = new WorkspaceGuard({ home: options.context.home });
  }

  /**
   * Set up the session host's scratch directory and shared network namespace (done by the first
   * call otherwise). Idempotent; never throws.
   *
   * @returns what could not be set up, one sentence each (shown to the operator)
   */
  async start(): Promise<string[]> {
    this.#host ??= openBrokerHost({
      context: this.#options.context,
      tmpDir: this.#options.tmpDir ?? "/tmp",
      sharedNetwork: this.#options.sharedNetwork ?? true,
      hostPorts: this.#options.hostPorts ?? [],
    });
    return [...(await this.#host).warnings];
  }

  /** The host's scratch directory (`TMPDIR` of every program), once {@linkcode start} ran. */
  async scratchDir(): Promise<string | undefined> {
    await this.start();
    return (await this.#host!).scratch?.dir;
  }

  /** Whether programs share one network namespace (after {@linkcode start}). */
  async sharesNetwork(): Promise<boolean> {
    await this.start();
    return (await this.#host!).network !== null;
  }

  /**
   * The workspace's protected files and the programs its repositories configure, scanned now
   * (synchronously: for the classifier's context before each call).
   *
   * @param workspace the workspace (real path)
   */
  workspaceFacts(workspace: string): WorkspaceFacts {
    return this.#guard.facts(workspace);
  }

  /**
   * Report every time odek undid changes a call made to files the host runs later, until the
   * returned function is called. @returns the function that stops the reports
   */
  onProtectedRevert(listener: (revert: ProtectedRevert) => void): () => void {
    return this.#reverts.subscribe(listener);
  }

  /** The context of a program or child of this host: with the scratch and the namespace. */
  async #hostContext(): Promise<Omit<SandboxContext, "workspace">> {
    await this.start();
    return hostContextOf(await this.#host!, this.#context);
  }

  /**
   * Run one call in its sandbox. Never throws for tool-level failures.
   *
   * @param call the call (arguments are validated again against the tool's schema)
   * @param signal aborts the call and kills what it started (a shell sandbox)
   * @param ready nothing of the call acts before it resolves (`runAfter`); a rejection rejects
   * @returns the tool result
   * @throws what `resolveWorkspace` throws other than `WORKSPACE_INVALID`; `OdekError`
   *   `TOOL_CHILD_FAILED` when deno or bwrap cannot be started at all
   */
  run(call: ToolInvocation, signal?: AbortSignal, ready?: Promise<void>): Promise<ToolResult> {
    const result = this.#screened(call, () => this.#run(call, signal, ready));
    // A call refused before it would have waited: the caller still learns that `ready` failed.
    return ready ? Promise.all([result, ready]).then(([done]) => done) : result;
  }

  /** `run` that acts only once `ready` resolves (see `ToolBroker.runAfter`). */
  runAfter(call: ToolInvocation, ready: Promise<void>, signal?: AbortSignal): Promise<ToolResult> {
    return this.run(call, signal, ready);
  }

  /**
   * Run one approved call of a library tool (`defineTool`), which must carry its verdict, in the
   * module-tool child for its scope (`_module_call.ts`). Refusals are data, as for `run`.
   * @throws as {@linkcode SandboxBroker.run} does
   */
  async runModuleTool(
    invocation: ToolInvocation,
    tool: ModuleTool,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    return await this.#screened(invocation, () =>
      runModuleCall(invocation, tool, {
        modules: this.#pools.modules,
        scope: { ...this.#options, context: this.#context },
        guard: this.#guard,
        reverts: this.#reverts,
        key: `${invocation.id}#${this.#calls++}`,
        withEgress: (call) => this.#withEgress(call),
      }, signal));
  }

  /** Run `call`: a `PATH_CHANGED` it throws (a pin or a sandbox check failed) is a refusal. */
  async #screened(invocation: ToolInvocation, call: () => Promise<ToolResult>) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof OdekError) || error.code !== "PATH_CHANGED") throw error;
      return this.#refusals.refuse(invocation, error.message);
    }
  }

  /**
   * Report every call refused because a path odek checked changed before its sandbox used it,
   * until the returned function is called. @returns the function that stops the reports
   */
  onSandboxRefusal(listener: (refusal: SandboxRefusal) => void): () => void {
    return this.#refusals.subscribe(listener);
  }

  async #run(invocation: ToolInvocation, signal?: AbortSignal, ready?: Promise<void>) {
    if (this.#closed) {
      return failure("failed", `Cannot run ${invocation.name}: the broker is closed`);
    }
    const admitted = await admitCall(invocation, this.#options);
    if ("ok" in admitted) return admitted;
    const { tool, args, workspace, addDirs, verdict } = admitted;
    const { real, derive } = await scopeDeriver(
      { ...invocation, args },
      verdict,
      workspace,
      addDirs,
      {
        trustLevel: this.#options.trustLevel,
        context: this.#context,
      },
    );
    const base = derive();
    // Compute and web children never write the workspace: only the others are guarded.
    const guarded = tool.category === "compute" || tool.category === "web"
      ? base.writePaths.filter((p) => p !== workspace)
      : base.writePaths;
    const call = { invocation, key: `${invocation.id}#${this.#calls++}`, workspace, verdict: real };
    return await guardedCall(
      this.#guard,
      this.#reverts,
      call,
      guarded,
      ({ facts, defer }) =>
        this.#dispatch(invocation, tool, args, facts ? derive(facts.protectedRoots) : base, {
          workspace,
          addDirs,
          protectedExtra: facts?.protectedExtra ?? [],
          defer,
          ...(signal ? { signal } : {}),
          ...(ready ? { ready } : {}),
        }),
    );
  }

  async #dispatch(
    invocation: ToolInvocation,
    tool: NonNullable<ReturnType<typeof findBuiltinTool>>,
    args: Record<string, unknown>,
    set: PermissionSet,
    options: {
      workspace: string;
      addDirs: AddDir[];
      protectedExtra: readonly string[];
      signal?: AbortSignal;
      /** Hand the end of the protected-file check to something outliving the call (a job). */
      defer: () => () => RevertedPath[];
      ready?: Promise<void>; // nothing of the call takes effect before it resolves (`runAfter`)
    },
  ): Promise<ToolResult> {
    const { name } = invocation;
    const { signal, workspace, addDirs, ready } = options;
    const context = await this.#hostContext();
    if (tool.category !== "shell") await ready; // a shell call waits with its sandbox ready
    if (tool.category === "files") {
      return await runFileCall(this.#pools.files, this.#context.protectedRoots, invocation, args, {
        set,
        workspace,
        addDirs,
        protectedExtra: options.protectedExtra,
        ...(signal ? { signal } : {}),
      });
    }
    if (tool.category === "compute") {
      return await this.#pools.compute.call(name, args, {
        set: NO_PERMISSIONS,
        workspace: "/",
        signal,
      });
    }
    if (tool.category === "web") {
      return await this.#withEgress(() =>
        this.#pools.web.call(name, args, { set, workspace, signal })
      );
    }
    if (tool.category === "bg") {
      const credential = name === "bg_start" && set.network.type !== "none"
        ? this.#options.egress?.issue()
        : undefined;
      // A job lives past this call: its protected-file check and its credential end with it.
      const ending = name === "bg_start" ? options.defer() : () => [];
      return await runBackgroundTool(this.#jobs, name, args, {
        set,
        context: { ...context, workspace },
        ...(credential ? { egressToken: credential.token } : {}),
        onExit: () => {
          credential?.revoke();
          this.#reverts.report(invocation, ending());
        },
      });
    }
    if (tool.category !== "shell") {
      return failure("unknown_tool", `${name} does not run in a sandbox`);
    }
    return await runShellCall(String(args.command), {
      set,
      context: { ...context, workspace },
      addDirs,
      timeoutMs: typeof args.timeout_seconds === "number"
        ? args.timeout_seconds * 1000
        : this.#options.shellTimeoutMs ?? 1_800_000,
      standby: this.#standby,
      shells: this.#shells,
      targetUsers: this.#targetUsers,
      ...(this.#options.egress ? { egress: this.#options.egress } : {}),
      ...(signal ? { signal } : {}),
      ...(ready ? { ready } : {}),
    });
  }

  /**
   * A call in a child that may reach the network (a web tool, a library tool). A refused HTTPS
   * destination reaches the child only as a failed tunnel, so the proxy's decision on the
   * destination the child names (host and port, as fields) is added here.
   */
  async #withEgress(call: () => Promise<ToolResult>): Promise<ToolResult> {
    const refusals: EgressDecision[] = [];
    const stop = this.onEgress((decision) => {
      if (!decision.allowed || decision.reason) refusals.push(decision);
    });
    try {
      return withEgressDecision(await call(), refusals);
    } finally {
      stop();
    }
  }

  /**
   * Report every egress decision (each destination a call with network asked for) to
   * `listener`, until the returned function is called. Without an egress proxy nothing is
   * reported.
   *
   * @param listener called once per destination; must not throw
   * @returns a function that stops the reports
   */
  onEgress(listener: (decision: EgressDecision) => void): () => void {
    return this.#options.egress?.subscribe(listener) ?? (() => {});
  }

  /**
   * Start a spare sandbox for each shell scope used so far (see `_sandbox_standby.ts`). No tool
   * child is started ahead of its first call: a child holds ~60 MB that a run may never use, and
   * a file-heavy run pays its start once per scope (docs/performance.md).
   */
  prepare(): void {
    if (this.#closed) return;
    this.#standby.prepare();
  }

  /**
   * Start an MCP stdio server in its sandbox for the workspace (see `stdio_server.ts`); `close()`
   * stops it. @throws {OdekError} as `StdioServers.start`, and `WORKSPACE_INVALID`
   */
  async startServer(spec: StdioServerSpec): Promise<StdioServerProcess> {
    const workspace = await this.#options.resolveWorkspace();
    return await this.#pools.startServer(spec, workspace);
  }

  /** Start a sub-agent's loop process (see `ToolBroker.startSubagent`); `close()` kills it. */
  async startSubagent(spec: StdioServerSpec): Promise<StdioServerProcess> {
    return await this.#pools.startSubagent(spec, await this.#options.resolveWorkspace());
  }

  /**
   * Kill every tool child and every shell sandbox in flight, stop the shared network namespace
   * and remove the scratch directory. Idempotent; later calls fail as data.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#shells) controller.abort();
    await Promise.all([
      this.#pools.close(),
      this.#standby.close(),
      this.#jobs.close(),
    ]);
    await this.#options.egress?.close();
    await (await this.#host)?.close();
  }

  /** {@linkcode SandboxBroker.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
