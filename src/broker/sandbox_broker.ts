/**
 * The real {@linkcode ToolBroker}: every call classified, scoped and run in its sandbox.
 *
 * @module
 */
import { SandboxStandby } from "./_sandbox_standby.ts";
import { z } from "zod";
import { OdekError } from "../_util/odek_error.ts";
import { fixedVerdict } from "../danger/fixed_verdict.ts";
import type { TrustLevel } from "../danger/verdict.ts";
import { BUILTIN_TOOLS } from "./builtin_tools.ts";
import { derivePermissions } from "./derive_permissions.ts";
import { realTargets } from "./_real_targets.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import { runShell } from "./run_shell.ts";
import { ToolChildPool } from "./tool_child_pool.ts";
import type { ToolBroker, ToolInvocation, ToolResult } from "./tool_broker.ts";

/** Options for {@linkcode SandboxBroker}. */
export interface SandboxBrokerOptions {
  /** Paths and mode of this odek (see `sandboxContextFromEnvironment`). */
  context: Omit<SandboxContext, "workspace">;
  /**
   * Validates the workspace and returns its realpath. Called before every call (never cached);
   * an `OdekError` with code `WORKSPACE_INVALID` becomes a `denied` result.
   */
  resolveWorkspace: () => Promise<string>;
  /** The run's trust level: `untrusted` runs may only read. */
  trustLevel: TrustLevel;
  /** Shell timeout when the call names none, in milliseconds. @default 1_800_000 */
  shellTimeoutMs?: number;
  /** A file-tool call not answered within this many milliseconds kills its child. @default 120_000 */
  fileCallTimeoutMs?: number;
}

/**
 * Runs built-in tool calls: `fixedVerdict` → `derivePermissions` → the file-tool child for the
 * scope (`read_file`, `write_file`, `glob`) or a fresh sandbox (`shell`). Every failure is data:
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
  #pool: ToolChildPool;
  /** One controller per shell command in flight, so close() kills their sandboxes. */
  #shells = new Set<AbortController>();
  /** The next shell sandbox of each scope, started ahead of time (see `_sandbox_standby.ts`). */
  #standby = new SandboxStandby();
  #closed = false;

  /** @param options context, workspace resolver, trust level and timeouts */
  constructor(options: SandboxBrokerOptions) {
    this.#options = options;
    this.#pool = new ToolChildPool({
      context: options.context,
      callTimeoutMs: options.fileCallTimeoutMs,
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
    const { name } = invocation;
    if (this.#closed) return failure("failed", `Cannot run ${name}: the broker is closed`);
    const tool = BUILTIN_TOOLS.find((t) => t.name === name);
    if (tool === undefined) {
      const names = BUILTIN_TOOLS.map((t) => t.name).join(", ");
      return failure("unknown_tool", `There is no tool named "${name}": the tools are ${names}`);
    }
    const parsed = tool.schema.safeParse(invocation.args);
    if (!parsed.success) {
      return failure(
        "invalid_arguments",
        `Invalid arguments for ${name}: ${z.prettifyError(parsed.error)}`,
      );
    }
    const args = parsed.data;
    let workspace: string;
    try {
      workspace = await this.#options.resolveWorkspace();
    } catch (error) {
      if (error instanceof OdekError && error.code === "WORKSPACE_INVALID") {
        return failure("denied", `${name} was not run: ${error.message}`);
      }
      throw error;
    }
    const { context, trustLevel } = this.#options;
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
    const real = await realTargets(verdict, workspace);
    const set = derivePermissions({ ...invocation, args }, real, trustLevel, {
      workspace,
      protectedRoots: context.protectedRoots,
    });
    if (tool.category === "files") {
      return await this.#pool.call(name, args, { set, workspace, signal });
    }
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
        standby: this.#standby,
      });
    } finally {
      this.#shells.delete(controller);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Start a spare sandbox for each shell scope used so far (see `_sandbox_standby.ts`). */
  prepare(): void {
    if (!this.#closed) this.#standby.prepare();
  }

  /** Kill every tool child and every shell sandbox in flight. Idempotent; later calls fail as data. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const controller of this.#shells) controller.abort();
    await Promise.all([this.#pool.close(), this.#standby.close()]);
  }
}

function failure(
  kind: Exclude<ToolResult, { ok: true }>["error"]["kind"],
  message: string,
): ToolResult {
  return { ok: false, error: { kind, message } };
}
