/**
 * Per-request deadlines of one MCP server (private to `mcp/`) that stand still while the server
 * waits for the operator (an elicitation): a person filling in a form never times the call out.
 *
 * @module
 */

/** One running deadline. */
export interface CallTimer {
  /** Aborted when the deadline passes. */
  readonly signal: AbortSignal;
  /** Whether the deadline (not the caller) ended the request. */
  readonly expired: boolean;
  /** Stop the deadline. */
  clear(): void;
}

/** The deadlines of one server's requests. */
export class CallTimers {
  readonly #timers = new Set<
    { left: number; since: number; fire: () => void; t?: ReturnType<typeof setTimeout> }
  >();
  #paused = 0;

  /**
   * Start a deadline of `ms` milliseconds.
   *
   * @param ms the time allowed while the operator is not being asked
   * @returns the timer
   */
  start(ms: number): CallTimer {
    const controller = new AbortController();
    let expired = false;
    const entry = {
      left: ms,
      since: Date.now(),
      fire: () => {
        expired = true;
        this.#timers.delete(entry);
        controller.abort(new DOMException("the request timed out", "TimeoutError"));
      },
      t: undefined as ReturnType<typeof setTimeout> | undefined,
    };
    this.#timers.add(entry);
    if (this.#paused === 0) entry.t = setTimeout(entry.fire, ms);
    return {
      signal: controller.signal,
      get expired() {
        return expired;
      },
      clear: () => {
        clearTimeout(entry.t);
        this.#timers.delete(entry);
      },
    };
  }

  /** The operator is being asked: every deadline stands still until {@linkcode resume}. */
  pause(): void {
    if (this.#paused++ > 0) return;
    const now = Date.now();
    for (const entry of this.#timers) {
      clearTimeout(entry.t);
      entry.left = Math.max(0, entry.left - (now - entry.since));
    }
  }

  /** The operator answered: the deadlines run on with the time they had left. */
  resume(): void {
    if (--this.#paused > 0) return;
    const now = Date.now();
    for (const entry of this.#timers) {
      entry.since = now;
      entry.t = setTimeout(entry.fire, entry.left);
    }
  }
}
