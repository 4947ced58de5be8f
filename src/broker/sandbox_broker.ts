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
import { createMissingTargets, removeUntouched } from "./_granted_targets.ts";
import { realTargets } from "./_real_targets.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import { runShell } from "./run_shell.ts";
import { BackgroundJobs } from "./background_jobs.ts";
import { runBackgroundTool } from "./_run_background_tool.ts";
import { ToolChildPool } from "./tool_child_pool.ts";
import { SandboxRefusals } from "./_sandbox_refusals.ts";
import { type StdioServerProcess, StdioServers, type StdioServerSpec } from "./stdio_server.ts";
import type { SandboxRefusal, ToolBroker, ToolInvocation, ToolResult } from "./tool_broker.ts";

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
  #closed = false;
  /** Whether the common file-tool children were started ahead of time. */
  #warmed = false;
  /** Calls refused because a checked path changed (see `onSandboxRefusal`). */
  #refusals = new SandboxRefusals();
  /** MCP stdio servers started for this broker's host (see `startServer`). */
  #servers = new StdioServers();

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
      context: this.#context,
      entry: join(options.context.toolsDir, "web.ts"),
      callTimeoutMs: WEB_CALL_TIMEOUT_MS,
    });
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
    const set = derivePermissions({ ...invocation, args }, real, trustLevel, {
      workspace,
      protectedRoots: context.protectedRoots,
      addDirs,
    });
    if (tool.category === "files") {
      const roots = addDirs.map((dir) => dir.path);
      return await this.#pool.call(name, args, { set, workspace, roots, signal });
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
      return await runBackgroundTool(this.#jobs, name, args, {
        set,
        context: { ...context, workspace },
      });
    }
    if (tool.category !== "shell") {
      return failure("unknown_tool", `${name} does not run in a sandbox`);
    }
    // Granted targets: write paths other than the workspace and the added directories, and not
    // inside another writable path (that one's bind already covers them).
    const granted = set.writePaths.filter((path) =>
      path !== workspace && !addDirs.some((dir) => dir.path === path) &&
      !set.writePaths.some((other) => other !== path && isInside(path, other))
    );
    for (const target of granted) {
      this.#targetUsers.set(target, (this.#targetUsers.get(target) ?? 0) + 1);
    }
    // After approval, before the sandbox: a missing granted target gets a placeholder to bind.
    const placeholders = context.mode === "none"
      ? [] // unconfined: the program writes the real path itself
      : await createMissingTargets(granted, context.protectedRoots);
    const seconds = typeof args.timeout_seconds === "number" ? args.timeout_seconds : undefined;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) controller.abort();
    this.#shells.add(controller);
    try {
      return await runShell(String(args.command), {
        set,
        context: { ...context, workspace },
        timeoutMs: seconds !== undefined
          ? seconds * 1000
          : this.#options.shellTimeoutMs ?? 1_800_000,
        signal: controller.signal,
        // A spare started earlier may bind an older placeholder: start this one on demand.
        ...(placeholders.length === 0 ? { standby: this.#standby } : {}),
      });
    } finally {
      this.#shells.delete(controller);
      signal?.removeEventListener("abort", onAbort);
      for (const target of granted) {
        this.#targetUsers.set(target, (this.#targetUsers.get(target) ?? 1) - 1);
      }
      const idle = placeholders.filter((p) => (this.#targetUsers.get(p.target) ?? 0) === 0);
      await removeUntouched(idle);
      for (const target of granted) {
        if (this.#targetUsers.get(target) === 0) this.#targetUsers.delete(target);
      }
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
        },
      );
      if (this.#closed) return;
      this.#pool.warm(set, workspace);
    }
  }

  /**
   * Start an MCP stdio server in its sandbox for the workspace (see `stdio_server.ts`); `close()`
   * stops it. @throws {OdekError} as `StdioServers.start`, and `WORKSPACE_INVALID`
   */
  async startServer(spec: StdioServerSpec): Promise<StdioServerProcess> {
    const workspace = await this.#options.resolveWorkspace();
    return await this.#servers.start(spec, { ...this.#context, workspace });
  }

  /** Kill every tool child and every shell sandbox in flight. Idempotent; later calls fail as data. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#shells) controller.abort();
    await Promise.all([
      this.#servers.close(),
      this.#pool.close(),
      this.#computePool.close(),
      this.#webPool.close(),
      this.#standby.close(),
      this.#jobs.close(),
    ]);
    await this.#options.egress?.close();
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
