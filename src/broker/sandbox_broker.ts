/**
 * The real {@linkcode ToolBroker}: every call classified, scoped and run in its sandbox.
 *
 * @module
 */
import { join } from "node:path";
import { SandboxStandby } from "./_sandbox_standby.ts";
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { fixedVerdict } from "../danger/fixed_verdict.ts";
import type { TrustLevel } from "../danger/verdict.ts";
import type { AddDir } from "../config/add_dirs.ts";
import { isInside } from "../config/validate_workspace.ts";
import { findBuiltinTool, TOOL_CATALOGUE } from "../../tools/_catalogue/mod.ts";
import { withEgressDecision } from "./_egress_refusal.ts";
import { derivePermissions } from "./derive_permissions.ts";
import type { EgressDecision, EgressProxy } from "./egress_proxy.ts";
import type { PermissionSet } from "./permission_set.ts";
import { grantedTargets, prepareGrants, releaseGrants, withGrantNotes } from "./_call_grants.ts";
import { type BrokerHost, openBrokerHost } from "./_broker_host.ts";
import { ProtectedReverts } from "./_protected_reverts.ts";
import { realTargets } from "./_real_targets.ts";
import { type RevertedPath, type WorkspaceFacts, WorkspaceGuard } from "./workspace_guard.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import { runShell } from "./run_shell.ts";
import { BackgroundJobs } from "./background_jobs.ts";
import { runBackgroundTool } from "./_run_background_tool.ts";
import { ToolChildPool } from "./tool_child_pool.ts";
import { SandboxRefusals } from "./_sandbox_refusals.ts";
import type {
  ProtectedRevert,
  SandboxRefusal,
  ToolBroker,
  ToolInvocation,
  ToolResult,
} from "./tool_broker.ts";

/** Options for {@linkcode SandboxBroker}. */
export interface SandboxBrokerOptions {
  /** Paths and mode of this odek (see `sandboxContextFromEnvironment`). */
  context: Omit<SandboxContext, "workspace">;
  /**
   * Validates the workspace and returns its realpath. Called before every call (never cached);
   * an `OdekError` with code `WORKSPACE_INVALID` becomes a `denied` result.
   */
  resolveWorkspace: () => Promise<string>;
  /**
   * Validates the directories the operator granted (`--add-dir`) and returns them realpathed.
   * Called before every call, like `resolveWorkspace`; `WORKSPACE_INVALID` becomes `denied`.
   * @default none granted
   */
  resolveAddDirs?: () => Promise<AddDir[]>;
  /** The run's trust level: `untrusted` runs may only read. */
  trustLevel: TrustLevel;
  /** Shell timeout when the call names none, in milliseconds. @default 1_800_000 */
  shellTimeoutMs?: number;
  /** A file-tool call not answered within this many milliseconds is cancelled. @default 120_000 */
  fileCallTimeoutMs?: number;
  /** A compute call not answered within this many milliseconds is cancelled. @default 30_000 */
  computeCallTimeoutMs?: number;
  /**
   * The egress proxy that calls granted network go through (the broker closes it in `close()`).
   * Without it, a granted network part stays offline: the sandbox keeps only `lo`.
   */
  egress?: EgressProxy;
  /**
   * Where the session host's private scratch (every program's `TMPDIR`) is created.
   * @default "/tmp"
   */
  tmpDir?: string;
  /**
   * Whether the programs of this broker (shell commands, background jobs) share one network
   * namespace, so a server one started answers a later one. @default true
   */
  sharedNetwork?: boolean;
  /** Host ports forwarded into the shared namespace (`--allow-host-port`). @default [] */
  hostPorts?: readonly number[];
}

/** The scope of every compute call: nothing at all. */
const NO_PERMISSIONS: PermissionSet = {
  readPaths: [],
  writePaths: [],
  network: { type: "none" },
  runBinaries: [],
  envNames: [],
};

/**
 * Runs built-in tool calls: `fixedVerdict` → `derivePermissions` → the file-tool child for the
 * scope (category `files`), the web tool child for the scope (`http_request`, `browser`), a
 * fresh sandbox (`shell`), or the compute child, which runs with no permissions whatever the
 * verdict (category `compute`). A scope with network reaches the egress proxy. Every failure is data:
 * an unknown tool is `unknown_tool`, bad arguments `invalid_arguments`, an invalid workspace, a
 * `deny` verdict, a `blocked` part or a non-read call in an `untrusted` run `denied`.
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
  #pool: ToolChildPool;
  /** The compute child (no permissions; `tools/compute.ts`). */
  #computePool: ToolChildPool;
  #webPool: ToolChildPool;
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
  /** Whether the common file-tool children were started ahead of time. */
  #warmed = false;
  /** Calls refused because a checked path changed (see `onSandboxRefusal`). */
  #refusals = new SandboxRefusals();

  /** @param options context, workspace resolver, trust level and timeouts */
  constructor(options: SandboxBrokerOptions) {
    this.#options = options;
    this.#context = options.egress
      ? { ...options.context, egressSocket: options.egress.socketPath }
      : options.context;
    this.#pool = new ToolChildPool({
      context: this.#context,
      callTimeoutMs: options.fileCallTimeoutMs,
    });
    this.#computePool = new ToolChildPool({
      context: this.#context,
      entry: join(options.context.toolsDir, "compute.ts"),
      callTimeoutMs: options.computeCallTimeoutMs ?? 30_000,
      permissions: "none",
    });
    this.#webPool = new ToolChildPool({
      // odek's own web child reaches the proxy without a per-call credential: its namespace is
      // its own, so nothing else can use its forwarder.
      context: options.egress
        ? { ...options.context, egressSocket: options.egress.trustedSocketPath }
        : options.context,
      entry: join(options.context.toolsDir, "web.ts"),
      callTimeoutMs: WEB_CALL_TIMEOUT_MS,
    });
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
    const host = await this.#host!;
    const network = host.network !== null && host.network.alive ? host.network : null;
    return {
      ...this.#context,
      ...(host.scratch ? { scratchDir: host.scratch.dir, scratchRoot: host.scratch.root } : {}),
      ...(network ? { netns: { enter: network.enter, ino: network.ino } } : {}),
    };
  }

  /**
   * Run one call in its sandbox. Never throws for tool-level failures.
   *
   * @param invocation the call (arguments are validated again against the tool's schema)
   * @param signal aborts the call and kills what it started (a shell sandbox)
   * @returns the tool result
   * @throws what `resolveWorkspace` throws other than `WORKSPACE_INVALID`; `OdekError`
   *   `TOOL_CHILD_FAILED` when deno or bwrap cannot be started at all
   */
  async run(invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    try {
      return this.#refusals.screen(invocation, await this.#run(invocation, signal));
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

  async #run(invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    const { name } = invocation;
    if (this.#closed) return failure("failed", `Cannot run ${name}: the broker is closed`);
    // The loop looked the call up and validated it (`entry`); other callers get both here.
    const tool = invocation.entry ?? findBuiltinTool(name);
    if (tool === undefined) {
      const names = TOOL_CATALOGUE.map((t) => t.name).join(", ");
      return failure("unknown_tool", `There is no tool named "${name}": the tools are ${names}`);
    }
    let args = invocation.args;
    if (invocation.entry === undefined) {
      const parsed = tool.args.safeParse(invocation.args);
      if (!parsed.success) {
        return failure(
          "invalid_arguments",
          `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`,
        );
      }
      args = parsed.data;
    }
    let workspace: string;
    let addDirs: AddDir[];
    try {
      workspace = await this.#options.resolveWorkspace();
      addDirs = (await this.#options.resolveAddDirs?.()) ?? [];
    } catch (error) {
      if (error instanceof OdekError && error.code === "WORKSPACE_INVALID") {
        return failure("denied", `${name} was not run: ${error.message}`);
      }
      throw error;
    }
    const { trustLevel } = this.#options;
    const context = this.#context;
    const verdict = invocation.verdict ?? fixedVerdict({ name, args });
    const refused = verdict.decision === "deny" ||
      verdict.parts.some((part) => part.riskClass === "blocked");
    if (refused) return failure("denied", `${name} was refused: ${verdict.reason}`);
    if (trustLevel === "untrusted" && verdict.parts.some((p) => p.riskClass !== "read")) {
      const classes = verdict.parts.map((p) => p.riskClass).join(", ");
      return failure(
        "denied",
        `${name} was refused: an untrusted run may only read (this is ${classes})`,
      );
    }
    // Granted targets become binds: resolve their links first (see _real_targets.ts).
    const real = await realTargets(verdict, workspace, {
      protectedRoots: context.protectedRoots,
      home: context.home,
    });
    const derive = (protectedPaths: readonly string[] = []) =>
      derivePermissions({ ...invocation, args }, real, trustLevel, {
        workspace,
        protectedRoots: context.protectedRoots,
        addDirs,
        protectedPaths,
      });
    const base = derive();
    // A scope that writes the workspace: its protected files stay as they are (bound read-only
    // when they exist, reverted when the call made new ones or changed them).
    const writable = base.writePaths.includes(workspace) && tool.category !== "compute" &&
      tool.category !== "web";
    const approved = base.writePaths.filter((p) => p !== workspace);
    let facts: WorkspaceFacts | undefined;
    if (writable) {
      const begun = this.#guard.begin(workspace, `${invocation.id}#${this.#calls}`, approved);
      this.#reverts.report(invocation, begun.reverted);
      facts = begun.facts;
    }
    const key = `${invocation.id}#${this.#calls++}`;
    let ended = !writable;
    let deferred = false;
    const finish = () => {
      if (ended) return [];
      ended = true;
      return this.#guard.end(workspace, key, approved);
    };
    const end = () => (deferred ? [] : finish());
    try {
      const set = facts ? derive(facts.protectedRoots) : base;
      const result = await this.#dispatch(invocation, tool, args, set, workspace, addDirs, {
        protectedExtra: facts?.protectedExtra ?? [],
        signal,
        defer: () => {
          deferred = true;
          return finish;
        },
      });
      const undone = end();
      this.#reverts.report(invocation, undone);
      return this.#reverts.annotate(result, undone, workspace);
    } finally {
      end();
    }
  }

  async #dispatch(
    invocation: ToolInvocation,
    tool: NonNullable<ReturnType<typeof findBuiltinTool>>,
    args: Record<string, unknown>,
    set: PermissionSet,
    workspace: string,
    addDirs: AddDir[],
    options: {
      protectedExtra: readonly string[];
      signal?: AbortSignal;
      /** Hand the end of the protected-file check to something outliving the call (a job). */
      defer: () => () => RevertedPath[];
    },
  ): Promise<ToolResult> {
    const { name } = invocation;
    const { signal } = options;
    const context = await this.#hostContext();
    if (tool.category === "files") {
      return await this.#runFile(invocation, args, set, workspace, addDirs, options);
    }
    if (tool.category === "compute") {
      return await this.#computePool.call(name, args, {
        set: NO_PERMISSIONS,
        workspace: "/",
        signal,
      });
    }
    if (tool.category === "web") return await this.#runWeb(name, args, set, workspace, signal);
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
    // Granted targets: write paths other than the workspace and the added directories, and not
    // inside another writable path (that one's bind already covers them).
    const granted = grantedTargets(set, workspace, addDirs);
    for (const target of granted) {
      this.#targetUsers.set(target, (this.#targetUsers.get(target) ?? 0) + 1);
    }
    // After approval, before the sandbox: a missing granted target gets a placeholder to bind;
    // one that cannot have one (its directory is missing) is left out, and the call told why.
    // Unconfined (`sandbox: "none"`), the program writes the real path itself.
    const grants = await prepareGrants(
      set,
      granted,
      context.protectedRoots,
      context.mode !== "none",
    );
    const placeholders = grants.placeholders;
    const credential = set.network.type !== "none" ? this.#options.egress?.issue() : undefined;
    const seconds = typeof args.timeout_seconds === "number" ? args.timeout_seconds : undefined;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    this.#shells.add(controller);
    try {
      const result = await runShell(String(args.command), {
        set: grants.set,
        context: { ...context, workspace },
        timeoutMs: seconds !== undefined
          ? seconds * 1000
          : this.#options.shellTimeoutMs ?? 1_800_000,
        signal: controller.signal,
        // A spare started earlier may bind an older placeholder: start this one on demand.
        ...(placeholders.length === 0 ? { standby: this.#standby } : {}),
        ...(credential ? { egressToken: credential.token } : {}),
      });
      return withGrantNotes(result, grants);
    } finally {
      credential?.revoke();
      this.#shells.delete(controller);
      signal?.removeEventListener("abort", onAbort);
      for (const target of granted) {
        this.#targetUsers.set(target, (this.#targetUsers.get(target) ?? 1) - 1);
      }
      const idle = placeholders.filter((p) => (this.#targetUsers.get(p.target) ?? 0) === 0);
      await releaseGrants({ ...grants, placeholders: idle });
      for (const target of granted) {
        if (this.#targetUsers.get(target) === 0) this.#targetUsers.delete(target);
      }
    }
  }

  /**
   * A file-tool call in the file child for its scope. Targets its approval granted outside the
   * workspace and the added directories are bound as single files (a placeholder when missing)
   * and written in place; such a child serves only this call, since its placeholder may go.
   */
  async #runFile(
    invocation: ToolInvocation,
    args: Record<string, unknown>,
    set: PermissionSet,
    workspace: string,
    addDirs: AddDir[],
    options: { protectedExtra: readonly string[]; signal?: AbortSignal },
  ): Promise<ToolResult> {
    const context = this.#context;
    const granted = grantedTargets(set, workspace, addDirs);
    const writes = invocation.name === "write_file" || invocation.name === "patch";
    const grants = await prepareGrants(set, writes ? granted : [], context.protectedRoots, true);
    if (grants.refused.length > 0) {
      const { path, why } = grants.refused[0];
      return failure(
        "denied",
        `${invocation.name} was not run: odek cannot grant ${path}: ${why}. Create the directory first, or ask the operator to add it with --add-dir DIR.`,
      );
    }
    // Targets inside the workspace an approval named (a protected file) are granted too.
    const inside = set.writePaths.filter((p) => p !== workspace && isInside(p, workspace));
    const roots = addDirs.map((dir) => dir.path);
    let result: ToolResult | undefined;
    try {
      result = await this.#pool.call(invocation.name, args, {
        set: grants.set,
        workspace,
        roots,
        grants: [...grants.targets, ...inside],
        protectedExtra: [...options.protectedExtra],
        oneShot: grants.targets.length > 0,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (
        !result.ok && /read-only file system/i.test(result.error.message) &&
        !set.writePaths.includes(workspace)
      ) {
        result = {
          ok: false,
          error: {
            ...result.error,
            message:
              `${result.error.message} (the scope of this call keeps the workspace read-only)`,
          },
        };
      }
      return result;
    } finally {
      await releaseGrants(grants, result?.ok === true);
    }
  }

  /**
   * A web call in the web child for its scope. A refused HTTPS destination reaches the child only
   * as a failed tunnel, so the proxy's decision on the destination the child names (host and
   * port, as fields) is added here.
   */
  async #runWeb(
    name: string,
    args: Record<string, unknown>,
    set: PermissionSet,
    workspace: string,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const refusals: EgressDecision[] = [];
    const stop = this.onEgress((decision) => {
      if (!decision.allowed || decision.reason) refusals.push(decision);
    });
    try {
      const result = await this.#webPool.call(name, args, { set, workspace, signal });
      return withEgressDecision(result, refusals);
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

  /** Start a spare sandbox for each shell scope used so far (see `_sandbox_standby.ts`). */
  prepare(): void {
    if (this.#closed) return;
    this.#standby.prepare();
    if (!this.#warmed) {
      this.#warmed = true;
      void this.#warmFileChildren();
    }
  }

  /**
   * Start the file-tool children of the two scopes nearly every run uses (the workspace
   * read-only, for reads; writable, for writes) while the model thinks about its first turn.
   */
  async #warmFileChildren(): Promise<void> {
    let workspace: string;
    let addDirs: AddDir[];
    try {
      workspace = await this.#options.resolveWorkspace();
      addDirs = (await this.#options.resolveAddDirs?.()) ?? [];
    } catch {
      return; // the first real call reports it
    }
    const protectedPaths = this.#guard.facts(workspace).protectedRoots;
    for (const name of ["read_file", "write_file"]) {
      const invocation = { id: "warm", name, args: { path: "." } };
      const set = derivePermissions(
        invocation,
        fixedVerdict(invocation),
        this.#options.trustLevel,
        {
          workspace,
          protectedRoots: this.#context.protectedRoots,
          addDirs,
          protectedPaths,
        },
      );
      if (this.#closed) return;
      this.#pool.warm(set, workspace);
    }
  }

  /**
   * Kill every tool child and every shell sandbox in flight, stop the shared network namespace
   * and remove the scratch directory. Idempotent; later calls fail as data.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#shells) controller.abort();
    await Promise.all([
      this.#pool.close(),
      this.#computePool.close(),
      this.#webPool.close(),
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

/** A web call may take 120 s (its own timeout) plus the child's start: then its child is killed. */
const WEB_CALL_TIMEOUT_MS = 150_000;

function failure(
  kind: Exclude<ToolResult, { ok: true }>["error"]["kind"],
  message: string,
): ToolResult {
  return { ok: false, error: { kind, message } };
}
