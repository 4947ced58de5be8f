/**
 * Timeouts around one model request: until the response starts, between body bytes, and for the
 * whole request. A stalled provider ends in a {@linkcode ModelTimeoutError}, never a hang.
 *
 * @module
 */

/** Which bound a request crossed. */
export type ModelTimeoutKind = "connect" | "idle" | "request";

/** Thrown (and used as the abort reason of the inner fetch) when a bound is crossed. */
export class ModelTimeoutError extends Error {
  /** `connect`: no response headers in time; `idle`: no body bytes; `request`: the whole cap. */
  readonly kind: ModelTimeoutKind;
  /** The bound that was crossed, in ms. */
  readonly limitMs: number;

  /**
   * @param kind which bound
   * @param limitMs its length in ms
   */
  constructor(kind: ModelTimeoutKind, limitMs: number) {
    const what = {
      connect: "no response started",
      idle: "no bytes arrived",
      request: "the request did not finish",
    }[kind];
    super(`model request stopped: ${what} within ${limitMs} ms`);
    this.name = "ModelTimeoutError";
    this.kind = kind;
    this.limitMs = limitMs;
  }
}

/** The bounds, in ms. */
export interface TimedFetchOptions {
  /** From sending the request to its status line and headers. */
  connectTimeoutMs: number;
  /** Longest gap between two pieces of the body. */
  idleTimeoutMs: number;
  /** From sending the request to the end of its body. */
  requestTimeoutMs: number;
}

/**
 * Wraps `inner` so that each request is bounded three ways (see {@linkcode TimedFetchOptions}).
 * When a bound is crossed the inner request is aborted and the promise (or the body read) rejects
 * with a {@linkcode ModelTimeoutError}. The caller's own `signal` still aborts as usual, with its
 * own reason.
 */
export function timedFetch(inner: typeof fetch, options: TimedFetchOptions): typeof fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const signal = init?.signal
      ? AbortSignal.any([init.signal, controller.signal])
      : controller.signal;
    const expire = (kind: ModelTimeoutKind, ms: number) =>
      setTimeout(() => controller.abort(new ModelTimeoutError(kind, ms)), ms);
    // The connect and idle timers run only while something waits, and keep the process alive
    // for it; the cap spans the whole request (a body nobody reads) and never does on its own.
    const cap = expire("request", options.requestTimeoutMs);
    cap.unref();
    const connect = expire("connect", options.connectTimeoutMs);
    let response: Response;
    try {
      response = await raceAbort(inner(input, { ...init, signal }), signal);
    } catch (err) {
      clearTimeout(cap);
      throw signal.aborted ? signal.reason : err;
    } finally {
      clearTimeout(connect);
    }
    const source = response.body;
    // Statuses without a body (204, 304, …) cannot be rebuilt with one.
    if (source === null || [101, 103, 204, 205, 304].includes(response.status)) {
      clearTimeout(cap);
      return response;
    }
    const reader = source.getReader();
    let idle: Timer | undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(out) {
        idle = expire("idle", options.idleTimeoutMs);
        try {
          const chunk = await raceAbort(reader.read(), signal);
          if (chunk.done) {
            clearTimeout(cap);
            out.close();
          } else out.enqueue(chunk.value);
        } catch (err) {
          clearTimeout(cap);
          reader.cancel().catch(() => {});
          out.error(signal.aborted ? signal.reason : err);
        } finally {
          clearTimeout(idle);
        }
      },
      cancel(reason) {
        clearTimeout(cap);
        clearTimeout(idle);
        return reader.cancel(reason);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

type Timer = ReturnType<typeof setTimeout>;

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
