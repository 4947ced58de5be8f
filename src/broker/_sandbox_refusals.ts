/**
 * Calls refused because a path they were to use changed after odek checked it (private to
 * `broker/`): the refusal as data for the model, and a report to every listener (the run turns
 * it into a `sandbox_refused` event). What is refused is told by `OdekError` `PATH_CHANGED`
 * alone: thrown by the core's pins, or by a runner whose sandbox's check failed (read off the
 * head of its stderr by `SandboxCheckVerdict`), never by a tool's output. See docs/security.md,
 * "Races".
 *
 * @module
 */
import type { SandboxRefusal, ToolInvocation, ToolResult } from "./tool_broker.ts";

/** The listeners of one broker, and how a refusal reads. */
export class SandboxRefusals {
  readonly #listeners = new Set<(refusal: SandboxRefusal) => void>();

  /** Report refusals to `listener` until the returned function is called. */
  subscribe(listener: (refusal: SandboxRefusal) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** Refuse `invocation` for `reason`: report it, and return the `denied` result. */
  refuse(invocation: ToolInvocation, reason: string): ToolResult {
    for (const listener of this.#listeners) {
      try {
        listener({ callId: invocation.id, name: invocation.name, reason });
      } catch {
        // A faulty listener must not change the result.
      }
    }
    const message =
      `${invocation.name} was not run: a path it uses changed after odek checked it, so its sandbox was refused (${reason}). Nothing of the call ran. If nothing else is renaming files in these directories, retry it.`;
    return { ok: false, error: { kind: "denied", message } };
  }
}
