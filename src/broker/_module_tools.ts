/**
 * The tool children of library tools (`defineTool`): one {@linkcode ToolChildPool} per tool
 * (module, name and timeout), each running `tools/module_tool.ts` with that module.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { moduleDirProblem } from "./_module_dir.ts";
import type { SandboxContext } from "./render_sandbox.ts";
import { ToolChildPool } from "./tool_child_pool.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { ModuleTool, ToolInvocation, ToolResult } from "./tool_broker.ts";

/** A library tool's calls run in file-tool children's time: 2 minutes. */
const DEFAULT_TIMEOUT_MS = 120_000;

/** The pools of a broker's library tools. */
export class ModuleToolPools {
  readonly #context: Omit<SandboxContext, "workspace">;
  readonly #pools = new Map<string, ToolChildPool>();
  #closed = false;

  /** @param context the broker's sandbox context */
  constructor(context: Omit<SandboxContext, "workspace">) {
    this.#context = context;
  }

  /**
   * The pool of one tool's call, its module's links resolved first (every call, as the workspace
   * is, so a module moved or replaced by a link is noticed) and its directory checked.
   *
   * @param invocation the call; it must carry the verdict it was approved with
   * @param tool its module and timeout
   * @returns the pool and the verdict, or the refusal for the model (`denied`: no verdict, or a
   *   directory that may not be shown to a sandbox; `failed`: the module cannot be opened, or the
   *   broker is closed)
   */
  async resolve(
    invocation: ToolInvocation,
    tool: ModuleTool,
  ): Promise<{ pool: ToolChildPool; verdict: Verdict } | { refusal: ToolResult }> {
    const { name, verdict } = invocation;
    const refuse = (kind: "denied" | "failed", message: string) => ({
      refusal: { ok: false as const, error: { kind, message } },
    });
    if (this.#closed) return refuse("failed", `Cannot run ${name}: the broker is closed`);
    if (verdict === undefined) {
      return refuse("denied", `${name} was not run: a library tool's call needs its verdict`);
    }
    let path: string;
    try {
      path = await Deno.realPath(tool.module);
    } catch (error) {
      return refuse(
        "failed",
        `${name} cannot run: its module ${tool.module} cannot be opened (${
          (error as Error).message
        })`,
      );
    }
    const problem = moduleDirProblem(dirname(path), this.#context);
    if (problem !== undefined) return refuse("denied", `${name} was not run: ${problem}`);
    if (this.#closed) return refuse("failed", `Cannot run ${name}: the broker is closed`);
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const key = `${path}\n${name}\n${timeoutMs}`;
    let pool = this.#pools.get(key);
    if (pool === undefined) {
      pool = new ToolChildPool({
        context: this.#context,
        entry: join(this.#context.toolsDir, "module_tool.ts"),
        module: { path, tool: name },
        callTimeoutMs: timeoutMs,
      });
      this.#pools.set(key, pool);
    }
    return { pool, verdict };
  }

  /** Kill every child and wait until all are gone. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
