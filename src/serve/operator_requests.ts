/**
 * The questions runs put to the operator while `odek serve` runs them: approvals of asking tool
 * calls and `clarify` questions, held until someone answers them over REST, the WebSocket or the
 * page. They come from the same `Approver`/`Clarifier` interfaces the terminal implements.
 *
 * @module
 */
import type {
  ApprovalAnswer,
  ApprovalCall,
  ApprovalRequest,
  Approver,
} from "../approval/approver.ts";
import type { Clarifier, ClarifyAnswer } from "../approval/clarifier.ts";
import type { Redactor } from "../_util/redact_known_values.ts";

/** One asking call as the operator sees it (arguments and previews redacted). */
export interface PendingApprovalCall {
  /** The tool-call id an answer names. */
  callId: string;
  /** The tool, e.g. `shell`. */
  toolName: string;
  /** The risk classes of the verdict's parts, e.g. `["destructive"]`. */
  riskClasses: string[];
  /** The exact command or the file-write diff (else the arguments as JSON). */
  preview: string;
  /** Why the classifier asks. */
  reason: string;
}

/**
 * A question a run is waiting on.
 *
 * @example Show what is pending
 * ```ts
 * import type { PendingRequest } from "./operator_requests.ts";
 * const request: PendingRequest = {
 *   id: "apr-1", type: "clarification", sessionId: "s1", createdAt: "2026-01-01T00:00:00.000Z",
 *   question: "Which branch?",
 * };
 * if (request.type !== "clarification") throw new Error("type");
 * ```
 */
export type PendingRequest =
  | {
    id: string;
    type: "approval";
    sessionId: string;
    createdAt: string;
    calls: PendingApprovalCall[];
  }
  | { id: string; type: "clarification"; sessionId: string; createdAt: string; question: string };

/** An answer to a pending approval: one decision per call (calls left out are denied). */
export interface ApprovalReply {
  decisions: { callId: string; approved: boolean; scope?: "once" | "class"; reason?: string }[];
}

/** An answer to a pending clarification: the text, or a refusal with a reason. */
export type ClarificationReply = { answer: string } | { declined: string };

interface Waiter {
  request: PendingRequest;
  settle(reply: ApprovalReply | ClarificationReply): void;
}

/**
 * Holds every pending question of a server; {@linkcode OperatorRequests.approverFor} and
 * {@linkcode OperatorRequests.clarifierFor} are what each session host is opened with.
 *
 * @example A clarification answered
 * ```ts
 * import { OperatorRequests } from "./operator_requests.ts";
 * const requests = new OperatorRequests((text) => text);
 * const answer = requests.clarifierFor("s1").ask("Which branch?");
 * const [pending] = requests.list();
 * requests.answer(pending.id, { answer: "main" });
 * const got = await answer;
 * if (!got.answered || got.answer !== "main") throw new Error("answer");
 * ```
 */
export class OperatorRequests {
  readonly #waiting = new Map<string, Waiter>();
  readonly #listeners = new Set<(change: RequestChange) => void>();
  readonly #redact: (text: string) => string;
  /** Ids answered here (newest last, bounded), for a clear "answered already". */
  readonly #answered = new Set<string>();
  readonly #deliveries = new Map<string, Promise<void>>();

  /** @param redact applied to every argument, preview and question before anyone sees it */
  constructor(redact: Redactor | ((text: string) => string)) {
    this.#redact = redact;
  }

  /** The pending questions, oldest first; of one session when `sessionId` is given. */
  list(sessionId?: string): PendingRequest[] {
    return [...this.#waiting.values()].map((w) => w.request).filter((r) =>
      sessionId === undefined || r.sessionId === sessionId
    );
  }

  /** The pending question `id`, if it is still pending. */
  get(id: string): PendingRequest | undefined {
    return this.#waiting.get(id)?.request;
  }

  /** Be told when a question is asked or settled. @returns a function that stops it */
  onChange(listener: (change: RequestChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Answer a pending question.
   *
   * @returns `false` when `id` is not pending (answered already, or its run stopped)
   * @throws {TypeError} when the reply's kind does not fit the question
   */
  answer(id: string, reply: ApprovalReply | ClarificationReply): boolean {
    const waiter = this.#waiting.get(id);
    if (!waiter) return false;
    const isApproval = "decisions" in reply;
    if (isApproval !== (waiter.request.type === "approval")) {
      throw new TypeError(
        `${id} is a pending ${waiter.request.type}: send ${
          waiter.request.type === "approval" ? "decisions" : "an answer or declined"
        }`,
      );
    }
    this.#answered.add(id);
    if (this.#answered.size > ANSWERED_KEPT) {
      this.#answered.delete(this.#answered.values().next().value!);
    }
    waiter.settle(reply);
    return true;
  }

  /** Whether `id` was answered on this server (a second answer is refused with it). */
  answered(id: string): boolean {
    return this.#answered.has(id);
  }

  /**
   * Wait until an answer reached the run: at once for a run of this server, once its
   * continuation is on the queue for a queued run's approval ({@linkcode OperatorRequests.hold}).
   *
   * @throws what delivering the answer threw (the question is pending again)
   */
  async delivered(id: string): Promise<void> {
    const delivery = this.#deliveries.get(id);
    this.#deliveries.delete(id);
    await delivery;
  }

  /**
   * Hold a question asked elsewhere (a queued run's approval, from the queue): it is listed,
   * streamed and answered like a local one, and `deliver` takes its answer. Holding an id held
   * or answered already does nothing.
   */
  hold(request: PendingRequest, deliver: (reply: ApprovalReply) => Promise<void>): void {
    if (this.#waiting.has(request.id) || this.#answered.has(request.id)) return;
    const shown: PendingRequest = request.type === "approval"
      ? {
        ...request,
        calls: request.calls.map((call) => ({
          ...call,
          preview: this.#redact(call.preview),
          reason: this.#redact(call.reason),
        })),
      }
      : { ...request, question: this.#redact(request.question) };
    this.#waiting.set(request.id, {
      request: shown,
      settle: (reply) => {
        this.#waiting.delete(request.id);
        this.#emit({ type: "settled", request: shown });
        const delivery = deliver(reply as ApprovalReply).catch((error) => {
          this.#answered.delete(request.id); // the next look at the queue asks it again
          throw error;
        });
        delivery.catch(() => {});
        this.#deliveries.set(request.id, delivery);
      },
    });
    this.#emit({ type: "asked", request: shown });
  }

  /** A held question is no longer pending (answered elsewhere, or its run ended). */
  release(id: string): void {
    const waiter = this.#waiting.get(id);
    if (!waiter) return;
    this.#waiting.delete(id);
    this.#emit({ type: "settled", request: waiter.request });
  }

  /** The approver of one session's host: each batch waits here until answered. */
  approverFor(sessionId: string): Approver {
    return {
      decide: (request: ApprovalRequest, signal?: AbortSignal) =>
        this.#wait(
          {
            id: newRequestId("apr"),
            type: "approval",
            sessionId,
            createdAt: new Date().toISOString(),
            calls: request.calls.map((call) => this.#shown(call)),
          },
          signal,
        ).then((reply) => answersFor(request, reply as ApprovalReply)),
    };
  }

  /** The clarifier of one session's host (elicitation forms are declined: not in the page yet). */
  clarifierFor(sessionId: string): Clarifier {
    return {
      ask: async (question: string, signal?: AbortSignal): Promise<ClarifyAnswer> => {
        const reply = await this.#wait({
          id: newRequestId("clr"),
          type: "clarification",
          sessionId,
          createdAt: new Date().toISOString(),
          question: this.#redact(question),
        }, signal) as ClarificationReply;
        return "answer" in reply
          ? { answered: true, answer: reply.answer }
          : { answered: false, reason: `The operator declined to answer: ${reply.declined}` };
      },
    };
  }

  #shown(call: ApprovalCall): PendingApprovalCall {
    return {
      callId: call.callId,
      toolName: call.toolName,
      riskClasses: [...new Set(call.verdict.parts.map((part) => part.riskClass))],
      preview: this.#redact(call.preview ?? JSON.stringify(call.args, null, 2)),
      reason: this.#redact(call.verdict.reason),
    };
  }

  #wait(
    request: PendingRequest,
    signal?: AbortSignal,
  ): Promise<ApprovalReply | ClarificationReply> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const done = () => {
        this.#waiting.delete(request.id);
        signal?.removeEventListener("abort", onAbort);
        this.#emit({ type: "settled", request });
      };
      const onAbort = () => {
        done();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(request.id, {
        request,
        settle: (reply) => {
          done();
          resolve(reply);
        },
      });
      this.#emit({ type: "asked", request });
    });
  }

  #emit(change: RequestChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}

/** A question was asked or settled (answered, or its run stopped waiting). */
export interface RequestChange {
  type: "asked" | "settled";
  request: PendingRequest;
}

function answersFor(request: ApprovalRequest, reply: ApprovalReply): ApprovalAnswer[] {
  return request.calls.map((call) => {
    const decision = reply.decisions.find((d) => d.callId === call.callId);
    if (!decision) {
      return {
        callId: call.callId,
        approved: false,
        scope: "once",
        reason: "denied: the operator's answer did not name this call",
      };
    }
    const reason = decision.reason?.trim();
    return {
      callId: call.callId,
      approved: decision.approved,
      scope: decision.approved ? decision.scope ?? "once" : "once",
      reason: reason
        ? (decision.approved ? reason : `denied by the operator: ${reason}`)
        : decision.approved
        ? "approved by the operator in odek serve"
        : "denied by the operator in odek serve",
    };
  });
}

/** Answered ids kept for "answered already". */
const ANSWERED_KEPT = 1000;

function newRequestId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `${prefix}-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
