/**
 * An abortable wait for the fakes.
 *
 * @module
 */

/**
 * Resolves after `ms` milliseconds (never for `Infinity`), or as soon as `signal` aborts. It
 * never rejects: callers check the signal afterwards.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal?.addEventListener("abort", done, { once: true });
  });
}
