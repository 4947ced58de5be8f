/**
 * Stand-ins for what a session host starts later (docs/runtime.md, "What a host starts later"):
 * the gate until its classifier and broker are up, the checkpoint store until it is open, and the
 * model of a run whose host is still starting (a part that fails ends the run with its error,
 * aborting the model request in flight).
 *
 * @module
 */
import { OdekError } from "../_util/odek_error.ts";
import type { CheckpointStore } from "../checkpoint/checkpoint_store.ts";
import type { Approver } from "../approval/approver.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { Model, ModelRequest, ModelResponse } from "../llm/model.ts";

/** A checkpoint store that can be closed (the host closes it last). */
export type ClosableCheckpointStore = CheckpointStore & { close(): Promise<void> };

/** `fn` called once, on first use; the same promise after (a rejection is handled, never lost). */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => {
    if (value === undefined) {
      value = fn();
      value.catch(() => {});
    }
    return value;
  };
}

/**
 * The gate of a host whose classifier or broker has not started or is still starting:
 * `ready()` starts them, builds the gate and resolves once `ready` too resolved (the loop awaits
 * it before it classifies a batch); `classify` works once the gate is built and throws before.
 *
 * @param build builds the gate once its parts are up (called on first use)
 * @param ready everything a tool call needs (the host's whole start-up)
 * @param approver the surface's approver (known at once)
 * @returns the gate, and `built()`: resolves when `classify` works
 *
 * @example A gate that classifies once its parts are up
 * ```ts
 * import { deferredGate } from "./_host_startup.ts";
 * import { NonInteractiveApprover } from "../approval/non_interactive_approver.ts";
 * const approver = new NonInteractiveApprover();
 * const built = { classify: () => ({ parts: [], decision: "allow" as const, reason: "ok" }), approver };
 * const gate = deferredGate(() => Promise.resolve(built), () => Promise.resolve(), approver);
 * await gate.ready!();
 * if (gate.classify({ name: "glob", args: {} }).decision !== "allow") throw new Error("gate");
 * ```
 */
export function deferredGate(
  build: () => Promise<ToolGate>,
  ready: () => Promise<void>,
  approver: Approver,
): ToolGate & { built(): Promise<void> } {
  let gate: ToolGate | undefined;
  const built = once(() =>
    build().then((g) => {
      gate = g;
    })
  );
  const up = once(() => Promise.all([built(), ready()]).then(() => {}));
  return {
    built,
    ready: up,
    classify(call) {
      if (!gate) {
        throw new Error(
          "a call was classified before the host's parts were up (await gate.ready())",
        );
      }
      return gate.classify(call);
    },
    approver,
    preview: async (call) => {
      await built();
      return await gate!.preview?.(call);
    },
  };
}

/**
 * A checkpoint store opened on first use (or by `open()`): each method waits for it and rejects
 * with its error; `close()` closes what was opened, and opens nothing.
 *
 * @param open opens the store (called once)
 * @returns the store, and `open()`
 *
 * @example Close a store that failed to open
 * ```ts
 * import { deferredCheckpointStore } from "./_host_startup.ts";
 * const store = deferredCheckpointStore(() => Promise.reject(new Error("no space")));
 * if (await store.list().then(() => true, () => false)) throw new Error("list");
 * await store.close();
 * ```
 */
export function deferredCheckpointStore(
  open: () => Promise<ClosableCheckpointStore>,
): ClosableCheckpointStore & { open(): Promise<ClosableCheckpointStore> } {
  const opened = once(open);
  let started = false;
  let closed = false;
  const store = () => {
    // Closed before anything used it: nothing is opened any more.
    if (closed && !started) {
      return Promise.reject(new OdekError("SESSION_BUSY", "The session host is closed."));
    }
    started = true;
    return opened();
  };
  return {
    open: store,
    record: async (step) => await (await store()).record(step),
    list: async () => await (await store()).list(),
    diff: async (a, b, options) => await (await store()).diff(a, b, options),
    restore: async (id, paths, options) => await (await store()).restore(id, paths, options),
    close: async () => {
      closed = true;
      if (!started) return;
      await (await opened().catch(() => undefined))?.close();
    },
  };
}

/** Milliseconds after a first request was handed over when the parts start if nothing said it left. */
const STARTUP_FALLBACK_MS = 100;

/**
 * The model of a run on a host that may still be starting. The first request while it is not up
 * starts it (`startup`) once the request has left: when the provider answered
 * (`ModelRequest.onResponse`, the response's headers), at the first delta, when the answer came
 * back, or 100 ms after the request (or, after an attempt no provider answered, its retry) was
 * handed over, whichever comes first (a request that fails first starts nothing; so does one
 * refused until it fails for good). Started earlier, the parts' module loading and
 * WebAssembly compiling held the thread the request needed to be sent (~30 ms of the first
 * request, docs/performance.md). The request is raced against the start-up: when a part fails,
 * the request is aborted and rejects with that part's error, so the run ends `failed` with the
 * code the open used to throw. Once up, requests go straight to `model` (nothing is added to a
 * step).
 *
 * @param model the host's model
 * @param startup starts the host's parts (idempotent) and resolves when they are up
 * @returns the model the run uses
 *
 * @example A failed start-up fails the request
 * ```ts
 * import { failWithStartup } from "./_host_startup.ts";
 * const hanging = { complete: (r: { signal?: AbortSignal; onResponse?: () => void }) => {
 *   r.onResponse?.(); // the provider answered; its body never ends
 *   return new Promise<never>((_, reject) => r.signal?.addEventListener("abort", () => reject(r.signal!.reason)));
 * } };
 * const model = failWithStartup(hanging, () => Promise.reject(new Error("no sandbox")));
 * const message = await model.complete({ messages: [], tools: [], iteration: 0 })
 *   .then(() => "", (error) => error.message);
 * if (message !== "no sandbox") throw new Error(message);
 * ```
 */
export function failWithStartup(model: Model, startup: () => Promise<void>): Model {
  let state: "starting" | "up" | { failed: unknown } = "starting";
  return {
    ...(model.prepare ? { prepare: () => model.prepare!() } : {}),
    complete(request: ModelRequest, onDelta) {
      if (state === "up") return model.complete(request, onDelta);
      if (state !== "starting") return Promise.reject(state.failed);
      performance.mark("odek:request");
      const abort = new AbortController();
      const signal = request.signal
        ? AbortSignal.any([request.signal, abort.signal])
        : abort.signal;
      const failed = Promise.withResolvers<never>();
      let begun = false;
      const begin = () => {
        clearTimeout(fallback);
        if (begun) return;
        begun = true;
        startup().then(() => {
          state = "up";
        }, (error) => {
          state = { failed: error };
          abort.abort(error);
          failed.reject(error);
        });
      };
      // A provider that holds its headers until its first token: the parts start anyway.
      let fallback = setTimeout(begin, STARTUP_FALLBACK_MS);
      let answer: Promise<ModelResponse>;
      try {
        answer = model.complete({
          ...request,
          signal,
          onResponse: () => {
            begin();
            request.onResponse?.();
          },
          onRetry: (retry) => {
            // An attempt no provider answered (refused, DNS, a reset): the fallback counts from
            // the next attempt, so a request that is never accepted starts nothing.
            if (!begun && retry.status === undefined) {
              clearTimeout(fallback);
              fallback = setTimeout(begin, retry.waitMs + STARTUP_FALLBACK_MS);
            }
            request.onRetry?.(retry);
          },
        }, (delta) => {
          begin();
          onDelta?.(delta);
        });
      } catch (error) {
        clearTimeout(fallback); // no request was made
        throw error;
      }
      // A request that failed ends the run: nothing needs the parts.
      answer.then(begin, () => clearTimeout(fallback));
      return Promise.race([answer, failed.promise]);
    },
  };
}
