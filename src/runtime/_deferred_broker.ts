/**
 * A session host's broker while it is still being built: the sandbox probes, the egress proxy,
 * the scratch and the network namespace's holder start when the host opens, and the first model
 * request does not wait for them (docs/runtime.md, "What a host starts later").
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { EgressDecision } from "../broker/egress_proxy.ts";
import type { StdioServerProcess, StdioServerSpec } from "../broker/stdio_server.ts";
import type {
  ModuleTool,
  ProtectedRevert,
  SandboxRefusal,
  ToolBroker,
  ToolInvocation,
  ToolResult,
} from "../broker/tool_broker.ts";

/** One kind of broker report: the listeners of the host's runs, fed by the real broker. */
class Reports<T> {
  readonly #listeners = new Set<(report: T) => void>();

  subscribe(listener: (report: T) => void): () => void {
    const entry = (report: T) => listener(report);
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  emit = (report: T): void => {
    for (const listener of [...this.#listeners]) listener(report);
  };
}

/**
 * A {@linkcode ToolBroker} over a broker built on first use (a call, `ready()`):
 * every call waits for it (a call never runs before the broker is up; when building failed, the
 * call rejects with that error), reports reach the runs that subscribed before it was up, and
 * `close()` waits for a build in progress and closes what it built, so nothing outlives the host.
 *
 * @example Calls wait for the broker being built
 * ```ts
 * import { DeferredBroker } from "./_deferred_broker.ts";
 * import { FakeBroker } from "../testing/fake_broker.ts";
 * const built = Promise.withResolvers<FakeBroker>();
 * const broker = new DeferredBroker(() => built.promise);
 * const result = broker.run({ id: "c1", name: "glob", args: { pattern: "*" } });
 * built.resolve(new FakeBroker(() => ({ ok: true, output: "built" })));
 * if (!(await result).ok) throw new Error("run");
 * await broker.close();
 * ```
 */
export class DeferredBroker implements ToolBroker {
  readonly #build: () => Promise<ToolBroker>;
  #broker: Promise<ToolBroker> | undefined;
  readonly #egress = new Reports<EgressDecision>();
  readonly #refusals = new Reports<SandboxRefusal>();
  readonly #reverts = new Reports<ProtectedRevert>();
  #built: ToolBroker | undefined;
  #closed = false;
  /** `prepare()` came before the broker was built (it is passed on once built). */
  #prepareWhenBuilt = false;

  /** @param build builds the broker, on first use (a rejection is what every use rejects with) */
  constructor(build: () => Promise<ToolBroker>) {
    this.#build = build;
  }

  /** Start building the broker (idempotent); resolves with it. @throws what building it threw */
  ready(): Promise<ToolBroker> {
    // Closed before anything used it: nothing is built any more (it would outlive the host).
    if (this.#closed && !this.#broker) {
      return Promise.reject(new OdekError("SESSION_BUSY", "The session host is closed."));
    }
    this.#broker ??= this.#build().then((built) => {
      this.#built = built;
      built.onEgress?.(this.#egress.emit);
      built.onSandboxRefusal?.(this.#refusals.emit);
      built.onProtectedRevert?.(this.#reverts.emit);
      if (this.#prepareWhenBuilt && !this.#closed) built.prepare?.();
      return built;
    });
    // A failed build is reported by the host's start-up (and by each use), never unhandled.
    this.#broker.catch(() => {});
    return this.#broker;
  }

  async run(invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    return await (await this.ready()).run(invocation, signal);
  }

  async runAfter(
    invocation: ToolInvocation,
    ready: Promise<void>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const broker = await this.ready().catch(async (error) => {
      await ready.catch(() => {});
      throw error;
    });
    if (broker.runAfter) return await broker.runAfter(invocation, ready, signal);
    await ready;
    return await broker.run(invocation, signal);
  }

  /**
   * The hint that the model is thinking, passed on to the broker. It does not start building
   * one (the host starts its parts once the first request has left, `_host_startup.ts`): before
   * the broker is built it is kept and passed on once it is.
   */
  prepare(): void {
    if (this.#built) this.#built.prepare?.();
    else if (!this.#closed) this.#prepareWhenBuilt = true;
  }

  onEgress(listener: (decision: EgressDecision) => void): () => void {
    return this.#egress.subscribe(listener);
  }

  onSandboxRefusal(listener: (refusal: SandboxRefusal) => void): () => void {
    return this.#refusals.subscribe(listener);
  }

  onProtectedRevert(listener: (revert: ProtectedRevert) => void): () => void {
    return this.#reverts.subscribe(listener);
  }

  async runModuleTool(
    invocation: ToolInvocation,
    tool: ModuleTool,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const broker = await this.ready();
    if (!broker.runModuleTool) {
      throw new TypeError("the host's broker cannot run library tools (no runModuleTool)");
    }
    return await broker.runModuleTool(invocation, tool, signal);
  }

  async startServer(spec: StdioServerSpec): Promise<StdioServerProcess> {
    const broker = await this.ready();
    if (!broker.startServer) throw new TypeError("the host's broker cannot start servers");
    return await broker.startServer(spec);
  }

  async startSubagent(spec: StdioServerSpec): Promise<StdioServerProcess> {
    const broker = await this.ready();
    if (!broker.startSubagent) throw new TypeError("the host's broker cannot start sub-agents");
    return await broker.startSubagent(spec);
  }

  /**
   * Waits for a build in progress, then closes what it built; builds nothing. Idempotent; never
   * throws for a failed build.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const broker = await this.#broker?.catch(() => undefined);
    await broker?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
