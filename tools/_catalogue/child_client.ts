/**
 * The core's end of the child protocol: calls multiplexed by id over one
 * {@linkcode LineTransport}, answers validated on receipt, and a call the core stops waiting for
 * (abort or timeout) cancelled in the child, not only forgotten.
 *
 * @module
 */
import {
  type CallMessage,
  type ChildError,
  ChildMessageSchema,
  type CoreMessage,
  parseMessage,
} from "./child_protocol.ts";
import type { LineTransport } from "./line_transport.ts";

/** How one call ended, as the core sees it. */
export type CallOutcome =
  /** The child answered with the tool's text. */
  | { type: "ok"; output: string }
  /** The child answered with a typed error. */
  | { type: "error"; error: ChildError }
  /** The core stopped waiting and sent `cancel`: `aborted` by the signal, or `timeout`. */
  | { type: "stopped"; reason: "aborted" | "timeout" }
  /** The child went away before answering (see {@linkcode ToolChildClient.failAll}). */
  | { type: "lost"; reason: string };

/** Options for {@linkcode ToolChildClient}. */
export interface ToolChildClientOptions {
  /**
   * How long a cancelled call may take to stop (its answer, any answer, is the child's
   * acknowledgement) before `onUnresponsive` is called. @default 2_000
   */
  cancelGraceMs?: number;
  /** A cancelled call did not stop in time: the child is stuck (the pool kills it). */
  onUnresponsive?: (toolName: string) => void;
  /** A line that is not a valid child message: the child broke the protocol. */
  onProtocolError?: (line: string, problem: string) => void;
  /** The child could not attribute a line the core sent to a call. */
  onRejected?: (message: string) => void;
}

/** Options of one {@linkcode ToolChildClient.call}. */
export interface ChildCallOptions {
  /** Stop waiting and cancel the call in the child. */
  signal?: AbortSignal;
  /** Stop waiting and cancel the call after this many milliseconds. @default no limit */
  timeoutMs?: number;
}

interface Pending {
  tool: string;
  resolve?: (outcome: CallOutcome) => void;
  /** Set once the call was cancelled: the child must answer before it fires. */
  grace?: ReturnType<typeof setTimeout>;
}

/**
 * Sends calls to one tool child and matches its answers to them.
 *
 * @example A cancelled call over an in-memory pair
 * ```ts
 * import { ToolChildClient } from "./child_client.ts";
 * import { inMemoryTransportPair } from "./line_transport.ts";
 * const [core, child] = inMemoryTransportPair();
 * const client = new ToolChildClient(core);
 * const listening = client.listen();
 * const controller = new AbortController();
 * const call = client.call({ tool: "slow", args: {}, workspace: "/" }, { signal: controller.signal });
 * controller.abort();
 * if ((await call).type !== "stopped") throw new Error("not stopped");
 * const sent: string[] = [];
 * await core.close();
 * for await (const line of child.receive()) sent.push(JSON.parse(line).type);
 * if (sent.join() !== "call,cancel") throw new Error(sent.join());
 * client.failAll("done");
 * await child.close();
 * await listening;
 * ```
 */
export class ToolChildClient {
  readonly #transport: LineTransport;
  readonly #options: ToolChildClientOptions;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  /**
   * @param transport the connection to the child
   * @param options the cancel grace period and the callbacks for a misbehaving child
   */
  constructor(transport: LineTransport, options: ToolChildClientOptions = {}) {
    this.#transport = transport;
    this.#options = options;
  }

  /**
   * Read the child's messages until its side closes. Call once.
   *
   * @returns when the child's side has closed (the caller then fails what is left with `failAll`)
   */
  async listen(): Promise<void> {
    for await (const line of this.#transport.receive()) {
      const parsed = parseMessage(ChildMessageSchema, line);
      if (!parsed.ok) {
        this.#options.onProtocolError?.(line, parsed.problem);
        continue;
      }
      const message = parsed.message;
      if (message.type === "rejected") {
        this.#options.onRejected?.(message.message);
        continue;
      }
      const pending = this.#pending.get(message.id);
      if (pending === undefined) continue;
      this.#pending.delete(message.id);
      clearTimeout(pending.grace);
      pending.resolve?.(
        message.ok
          ? { type: "ok", output: message.output }
          : { type: "error", error: message.error },
      );
    }
  }

  /**
   * Send one call and wait for its outcome. Never rejects.
   *
   * @param request the tool, its validated arguments, the workspace and the added roots
   * @param options `signal` and `timeoutMs`: either stops waiting and cancels the call
   * @returns the outcome
   */
  call(
    request: Omit<CallMessage, "type" | "id">,
    options: ChildCallOptions = {},
  ): Promise<CallOutcome> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) {
      return Promise.resolve({ type: "stopped", reason: "aborted" });
    }
    const id = this.#nextId++;
    return new Promise<CallOutcome>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: CallOutcome) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const pending = this.#pending.get(id);
        if (pending !== undefined) pending.resolve = undefined;
        resolve(outcome);
      };
      const stop = (reason: "aborted" | "timeout") => {
        const pending = this.#pending.get(id);
        if (pending === undefined || pending.resolve === undefined) return;
        finish({ type: "stopped", reason });
        void this.#send({ type: "cancel", id, reason });
        pending.grace = setTimeout(() => {
          this.#pending.delete(id);
          this.#options.onUnresponsive?.(pending.tool);
        }, this.#options.cancelGraceMs ?? 2_000);
      };
      const onAbort = () => stop("aborted");
      this.#pending.set(id, { tool: request.tool, resolve: finish });
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => stop("timeout"), timeoutMs);
      }
      void this.#send({ type: "call", id, ...request });
    });
  }

  /** Ask the child to load every handler now. */
  preload(): void {
    void this.#send({ type: "preload" });
  }

  /**
   * The child is gone: every call still waiting ends as `lost`, and no cancelled call is waited
   * for any more.
   *
   * @param reason why, told to the waiting calls
   */
  failAll(reason: string): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of pending) {
      clearTimeout(entry.grace);
      entry.resolve?.({ type: "lost", reason });
    }
  }

  async #send(message: CoreMessage): Promise<void> {
    try {
      await this.#transport.send(JSON.stringify(message));
    } catch {
      // The child is gone; its exit fails the calls still waiting (failAll).
    }
  }
}
