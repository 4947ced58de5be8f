/**
 * The approver of a durable run: it answers from the answers its run was started with, and for
 * any other asking call it pauses the run instead of waiting: it notes the batch, cancels the
 * run, and the workflow ends `awaiting_approval` holding no worker slot. The answer, given later
 * from anywhere, starts a continuation (`<run>:<approval id>`) whose approver has it.
 *
 * @module
 */
import type {
  ApprovalAnswer,
  ApprovalCall,
  ApprovalRequest,
  Approver,
} from "../approval/approver.ts";

/** A batch the run paused at. */
export interface PausedApproval {
  /** The approval's id: the first asking call's id (unique within the session). */
  id: string;
  /**
   * The asking calls: id, tool, arguments, the verdict's reason, its risk classes and what the
   * operator is shown (the exact command or the diff; redacted).
   */
  calls: {
    callId: string;
    toolName: string;
    args: Record<string, unknown>;
    reason: string;
    riskClasses?: string[];
    preview?: string;
  }[];
}

/**
 * An approver that pauses its run.
 *
 * @example Answers it was given come back; another question pauses
 * ```ts
 * import { PausingApprover } from "./pausing_approver.ts";
 * let cancelled = "";
 * const approver = new PausingApprover([{ callId: "c1", approved: true, scope: "once" }]);
 * approver.bind((reason) => (cancelled = reason));
 * const verdict = { parts: [], decision: "ask" as const, reason: "writes outside" };
 * const [answer] = await approver.decide({ calls: [{ callId: "c1", toolName: "shell", args: {}, verdict }] });
 * if (!answer.approved) throw new Error("given");
 * const abort = new AbortController();
 * const waiting = approver.decide({ calls: [{ callId: "c2", toolName: "shell", args: {}, verdict }] }, abort.signal);
 * abort.abort(new Error("stopped"));
 * await waiting.catch(() => {});
 * if (approver.paused?.id !== "c2" || cancelled !== "awaiting approval") throw new Error("paused");
 * ```
 */
export class PausingApprover implements Approver {
  readonly #given: Map<string, ApprovalAnswer>;
  readonly #redact: (text: string) => string;
  #cancel: ((reason: string) => void) | undefined;
  #pendingCancel = false;
  /** The batch the run paused at, if it did. */
  paused: PausedApproval | undefined;

  /**
   * @param given answers from the operator (a continuation's)
   * @param redact applied to the reason and preview kept for the operator
   */
  constructor(given: readonly ApprovalAnswer[] = [], redact: (text: string) => string = (t) => t) {
    this.#given = new Map(given.map((answer) => [answer.callId, answer]));
    this.#redact = redact;
  }

  /** Connect the run to cancel when pausing (a pause asked before this cancels at once). */
  bind(cancel: (reason: string) => void): void {
    this.#cancel = cancel;
    if (this.#pendingCancel) cancel("awaiting approval");
  }

  decide(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer[]> {
    const answers = request.calls.map((call) => this.#given.get(call.callId));
    if (answers.every((answer) => answer !== undefined)) {
      return Promise.resolve(answers as ApprovalAnswer[]);
    }
    this.paused = {
      id: request.calls[0].callId,
      calls: request.calls.map((call: ApprovalCall) => ({
        callId: call.callId,
        toolName: call.toolName,
        args: call.args,
        reason: this.#redact(call.verdict.reason),
        riskClasses: [...new Set(call.verdict.parts.map((part) => part.riskClass))],
        preview: this.#redact(call.preview ?? JSON.stringify(call.args, null, 2)),
      })),
    };
    const waiting = new Promise<ApprovalAnswer[]>((_, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
    if (this.#cancel) this.#cancel("awaiting approval");
    else this.#pendingCancel = true;
    return waiting;
  }
}
