/**
 * Builds run events in the `odek.event/v1` envelope.
 *
 * @module
 */
import type { RunEvent, RunEventData, RunEventType } from "./run_event.ts";

/** Envelope fields shared by the events of one run. */
export interface RunEventScope {
  runId: string;
  sessionId?: string;
  /** 1-based; omitted when 0 or absent. */
  iteration?: number;
  tool?: string;
}

/**
 * Build one event.
 *
 * @example
 * ```ts
 * import { makeRunEvent } from "./make_run_event.ts";
 * const e = makeRunEvent("session_saved", { message_count: 3 }, { runId: "ab" });
 * if (e.schema !== "odek.event/v1" || "iteration" in e) throw new Error(JSON.stringify(e));
 * ```
 */
export function makeRunEvent<T extends RunEventType>(
  type: T,
  data: RunEventData[T],
  scope: RunEventScope,
): RunEvent {
  return {
    schema: "odek.event/v1",
    type,
    run_id: scope.runId,
    ...(scope.sessionId ? { session_id: scope.sessionId } : {}),
    ...(scope.iteration ? { iteration: scope.iteration } : {}),
    ...(scope.tool ? { tool: scope.tool } : {}),
    timestamp: new Date().toISOString(),
    data,
  } as RunEvent;
}

/**
 * A fresh 128-bit hex run id.
 *
 * @example
 * ```ts
 * import { newRunId } from "./make_run_event.ts";
 * if (!/^[0-9a-f]{32}$/.test(newRunId())) throw new Error("bad id");
 * ```
 */
export function newRunId(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(16)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
}
