/**
 * An in-process {@linkcode ToolBroker} for unit tests of the loop: no child, no sandbox. Each
 * call is answered by a handler you give; every invocation is recorded with its timing, so tests
 * can check order and concurrency.
 *
 * @module
 */
import type { ToolBroker, ToolInvocation, ToolResult } from "../broker/tool_broker.ts";

/** Answers one call. May be slow; should honour `signal`. */
export type FakeToolHandler = (
  invocation: ToolInvocation,
  signal?: AbortSignal,
) => ToolResult | Promise<ToolResult>;

/** One recorded call. Times are `performance.now()` ms. */
export interface FakeBrokerCall {
  invocation: ToolInvocation;
  startedAt: number;
  endedAt?: number;
  result?: ToolResult;
}

/**
 * A scripted broker.
 *
 * @example
 * ```ts
 * import { FakeBroker } from "./fake_broker.ts";
 * const broker = new FakeBroker(({ name }) => ({ ok: true, output: `ran ${name}` }));
 * const result = await broker.run({ id: "c1", name: "glob", args: { pattern: "*" } });
 * if (!result.ok || broker.calls.length !== 1) throw new Error("not recorded");
 * ```
 */
export class FakeBroker implements ToolBroker {
  /** Every call, in start order. */
  readonly calls: FakeBrokerCall[] = [];
  /** Most calls that were running at the same time. */
  maxConcurrent = 0;
  /** Whether {@linkcode FakeBroker.close} was called. */
  closed = false;
  /** How often the caller hinted it was about to wait (see `ToolBroker.prepare`). */
  prepareCalls = 0;
  readonly #handler: FakeToolHandler;
  #running = 0;

  /** @param handler answers each call */
  constructor(handler: FakeToolHandler) {
    this.#handler = handler;
  }

  /** Run one call through the handler; a throwing handler becomes a `failed` result. */
  async run(invocation: ToolInvocation, signal?: AbortSignal): Promise<ToolResult> {
    // A snapshot of the call's data; the catalogue entry (schemas) is kept by reference.
    const { entry, ...data } = invocation;
    const call: FakeBrokerCall = {
      invocation: { ...structuredClone(data), ...(entry ? { entry } : {}) },
      startedAt: performance.now(),
    };
    this.calls.push(call);
    this.#running += 1;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.#running);
    try {
      call.result = await this.#handler(invocation, signal);
    } catch (error) {
      call.result = { ok: false, error: { kind: "failed", message: String(error) } };
    } finally {
      this.#running -= 1;
      call.endedAt = performance.now();
    }
    return call.result;
  }

  /** Count the hint. */
  prepare(): void {
    this.prepareCalls += 1;
  }

  /** Mark the broker closed. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** {@linkcode FakeBroker.close}: for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
