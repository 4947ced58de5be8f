/**
 * Long-lived file-tool children, one per distinct scope (design §2).
 *
 * @module
 */
import { join } from "node:path";
import type { CallOutcome } from "../../tools/_catalogue/child_client.ts";
import type { ChildError } from "../../tools/_catalogue/child_protocol.ts";
import { egressRefusalMessage } from "./_egress_refusal.ts";
import { OdekError } from "../_util/odek_error.ts";
import { type ModuleChild, withModuleDir } from "./_module_dir.ts";
import { ToolChild } from "./_tool_child.ts";
import { type PermissionSet, permissionSetKey } from "./permission_set.ts";
import { renderSandbox, type SandboxContext } from "./render_sandbox.ts";
import type { ToolResult } from "./tool_broker.ts";

/** Options for {@linkcode ToolChildPool}. */
export interface ToolChildPoolOptions {
  /** Paths and mode of this odek; the workspace comes with each call. */
  context: Omit<SandboxContext, "workspace">;
  /** The child program. @default `<context.toolsDir>/files.ts` */
  entry?: string;
  /**
   * A call not answered within this many milliseconds is cancelled (result `timeout`); its child
   * is killed when it does not stop within `cancelGraceMs`. @default 120_000
   */
  callTimeoutMs?: number;
  /**
   * How long a cancelled call (aborted or timed out) may take to stop in its child before the
   * child is killed. @default 2_000
   */
  cancelGraceMs?: number;
  /**
   * `none` runs the children with no `--allow-*` flag and no workspace mounted (the compute
   * child; calls must then pass a set that grants nothing, and the workspace `/`).
   * @default "scoped"
   */
  permissions?: "scoped" | "none";
  /**
   * The library tool the children serve (the module-tool child, `tools/module_tool.ts`): every
   * call's scope gets the module's directory as a read path (see `ModuleChild`). @default none
   */
  module?: ModuleChild;
}

/** Options for {@linkcode ToolChildPool.prototype.call}. */
export interface ToolChildCallOptions {
  /** The scope of the call: it picks (or starts) the child. */
  set: PermissionSet;
  /** The realpathed workspace: the child's cwd and the root every target must stay in. */
  workspace: string;
  /**
   * Realpathed directories the operator granted (`--add-dir`): targets inside them are contained
   * by them instead of the workspace. The child's flags and mounts still come from `set` alone.
   * @default []
   */
  roots?: string[];
  /**
   * Single files the call's approval granted (outside the workspace, or protected files inside
   * it): the child writes them in place. @default []
   */
  grants?: string[];
  /**
   * Protected places besides the fixed names (a repository's `core.hooksPath` and included
   * configuration, relative to the workspace): file tools refuse them unless granted.
   * @default []
   */
  protectedExtra?: string[];
  /**
   * Stop the child after this call (its scope binds a placeholder that may be removed after it).
   * @default false
   */
  oneShot?: boolean;
  /**
   * Stops waiting for the answer (the result is `interrupted`) and cancels the call in its child,
   * which stops the work (or is killed when it does not stop within `cancelGraceMs`).
   */
  signal?: AbortSignal;
}

/**
 * Runs file-tool calls in long-lived children, one per distinct (permission set, workspace): a
 * `deno run … tools/files.ts` inside bwrap, with exactly the flags and mounts
 * {@linkcode renderSandbox} produces, a cleared environment, and the child protocol on stdio
 * (`tools/_catalogue/child_protocol.ts`). Calls with the same scope share a child and run
 * concurrently in it; a call aborted or timed out is cancelled in its child; a child that dies
 * fails its pending calls as `failed` data (with its stderr tail) and is replaced on the next
 * call. Denials inside the child (Deno's `NotCapable`, the OS's EACCES/EROFS) come back as
 * `denied` data, an egress refusal as `denied` with its destination in `error.egress`.
 *
 * @example Read a file in a read-only child (no bwrap layer here, to stay portable)
 * ```ts
 * import { ToolChildPool } from "./tool_child_pool.ts";
 * import { sandboxContextFromEnvironment } from "./sandbox_context.ts";
 * const installDir = new URL("../..", import.meta.resolve("./tool_child_pool.ts")).pathname;
 * const context = await sandboxContextFromEnvironment({ odekHome: "/nonexistent", installDir, mode: "none" });
 * const pool = new ToolChildPool({ context });
 * const ws = await Deno.realPath(await Deno.makeTempDir());
 * try {
 *   await Deno.writeTextFile(`${ws}/a.txt`, "hello\n");
 *   const set = { readPaths: [ws], writePaths: [], network: { type: "none" as const }, runBinaries: [], envNames: [] };
 *   const result = await pool.call("read_file", { path: "a.txt" }, { set, workspace: ws });
 *   if (!result.ok || !result.output.startsWith("1|hello")) throw new Error(JSON.stringify(result));
 * } finally {
 *   await pool.close();
 *   await Deno.remove(ws, { recursive: true });
 * }
 * ```
 */
export class ToolChildPool implements AsyncDisposable {
  #context: Omit<SandboxContext, "workspace">;
  #entry: string;
  #callTimeoutMs: number;
  #cancelGraceMs: number;
  #permissions: "scoped" | "none";
  #module: ModuleChild | undefined;
  #children = new Map<string, ToolChild>();
  /** Every child not yet exited, including replaced ones, so close() waits for all. */
  #running = new Set<ToolChild>();
  #closed = false;

  /** @param options the sandbox context, the child program and the per-call timeout */
  constructor(options: ToolChildPoolOptions) {
    this.#context = options.context;
    this.#entry = options.entry ?? join(options.context.toolsDir, "files.ts");
    this.#callTimeoutMs = options.callTimeoutMs ?? 120_000;
    this.#cancelGraceMs = options.cancelGraceMs ?? 2_000;
    this.#permissions = options.permissions ?? "scoped";
    this.#module = options.module;
  }

  /**
   * Run one file-tool call in the child for its scope, starting that child when needed.
   *
   * @param tool a tool the child serves (`read_file`, `math_eval`, …)
   * @param args the validated arguments
   * @param options the scope, the workspace and an abort signal
   * @returns the tool result; never rejects for tool-level failures
   * @throws {RangeError} when the scope cannot be rendered (see {@linkcode renderSandbox})
   * @throws {OdekError} `TOOL_CHILD_FAILED` when deno or bwrap cannot be started at all;
   *   `PATH_CHANGED` when a bind changed while it was pinned, or the child's sandbox check failed
   *   (the first line of its stderr; nothing of the child ran)
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    options: ToolChildCallOptions,
  ): Promise<ToolResult> {
    const { set, workspace, signal } = options;
    if (this.#closed) {
      return { ok: false, error: { kind: "failed", message: "The tool-child pool is closed" } };
    }
    if (signal?.aborted) return interrupted(tool);
    const child = this.#childFor(set, workspace, options.oneShot === true);
    const roots = options.roots ?? [];
    const grants = options.grants ?? [];
    const protect = options.protectedExtra ?? [];
    try {
      const outcome = await child.call(
        {
          tool,
          args,
          workspace,
          ...(roots.length > 0 ? { roots } : {}),
          ...(grants.length > 0 ? { grants } : {}),
          ...(protect.length > 0 ? { protect } : {}),
        },
        { timeoutMs: this.#callTimeoutMs, ...(signal ? { signal } : {}) },
      );
      // Refused by its sandbox's check (read off its stderr's head): a refusal, not a result.
      if (outcome.type === "lost" && child.refusal !== undefined) {
        throw new OdekError("PATH_CHANGED", child.refusal);
      }
      return this.#resultOf(tool, outcome);
    } finally {
      if (options.oneShot) await child.kill("its one call is done");
    }
  }

  #resultOf(tool: string, outcome: CallOutcome): ToolResult {
    switch (outcome.type) {
      case "ok":
        return { ok: true, output: outcome.output };
      case "error":
        return resultOfError(outcome.error);
      case "stopped":
        return outcome.reason === "aborted" ? interrupted(tool) : {
          ok: false,
          error: {
            kind: "timeout",
            message: `${tool} did not answer within ${this.#callTimeoutMs} ms; it was cancelled ` +
              `(its tool child is killed unless it stops within ${this.#cancelGraceMs} ms)`,
          },
        };
      case "lost":
        return { ok: false, error: { kind: "failed", message: outcome.reason } };
      default: {
        const unreachable: never = outcome;
        throw new TypeError(`Unknown outcome: ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /**
   * The pid of the live child for a scope (bwrap's pid when sandboxed), if one is running.
   *
   * @param set the scope
   * @param workspace the workspace
   * @returns the pid, or `undefined`
   */
  pidOf(set: PermissionSet, workspace: string): number | undefined {
    const scoped = this.#module ? withModuleDir(set, this.#module) : set;
    const child = this.#children.get(poolKey(scoped, workspace));
    return child?.alive ? child.pid : undefined;
  }

  /** Kill every child and wait until all are gone. Idempotent; later calls fail as data. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#children.clear();
    const children = [...this.#running];
    await Promise.all(children.map((child) => child.kill("The tool-child pool was closed")));
  }

  /** {@linkcode ToolChildPool.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #childFor(callSet: PermissionSet, workspace: string, oneShot = false): ToolChild {
    const set = this.#module ? withModuleDir(callSet, this.#module) : callSet;
    const key = poolKey(set, workspace);
    const existing = oneShot ? undefined : this.#children.get(key);
    if (existing?.alive) return existing;
    const context: SandboxContext = { ...this.#context, workspace };
    const { argv, env, check } = renderSandbox(set, context, {
      kind: "tool_child",
      entry: this.#entry,
      permissions: this.#permissions,
      ...(this.#module ? { module: this.#module } : {}),
    });
    const cwd = this.#permissions === "none" ? "/" : workspace;
    const child = new ToolChild({ argv, env, cwd, check }, (gone) => {
      this.#running.delete(gone);
      if (this.#children.get(key) === gone) this.#children.delete(key);
    }, { cancelGraceMs: this.#cancelGraceMs });
    if (!oneShot) this.#children.set(key, child);
    this.#running.add(child);
    return child;
  }
}

function poolKey(set: PermissionSet, workspace: string): string {
  return `${permissionSetKey(set)}\n${workspace}`;
}

/** A child's typed error as the model's result. */
function resultOfError(error: ChildError): ToolResult {
  switch (error.kind) {
    case "egress_refused": {
      const egress = { url: error.url, host: error.host, port: error.port };
      return {
        ok: false,
        error: { kind: "denied", message: egressRefusalMessage(egress), egress },
      };
    }
    case "cancelled":
      return { ok: false, error: { kind: "interrupted", message: error.message } };
    default:
      return { ok: false, error: { kind: error.kind, message: error.message } };
  }
}

function interrupted(tool: string): ToolResult {
  return { ok: false, error: { kind: "interrupted", message: `${tool} was interrupted` } };
}
