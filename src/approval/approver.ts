/**
 * The approver seam (design §3 "Approvers"): asks someone, or a policy, whether the tool calls
 * whose verdict is `ask` may run. Implementations: {@linkcode NonInteractiveApprover} (the
 * `--yes` policy) and {@linkcode TerminalApprover} (the controlling terminal).
 *
 * @module
 */
import { z } from "zod";
import { RiskClassSchema } from "../danger/verdict.ts";
import type { Verdict, VerdictPart } from "../danger/verdict.ts";

/** Zod schema of one {@linkcode VerdictPart}, for requests that cross a process edge. */
export const VerdictPartSchema: z.ZodType<VerdictPart> = z.object({
  riskClass: RiskClassSchema,
  subject: z.string(),
  targets: z.array(z.string()),
  detail: z.string().optional(),
});

/** Zod schema of a {@linkcode Verdict}. */
export const VerdictSchema: z.ZodType<Verdict> = z.object({
  parts: z.array(VerdictPartSchema),
  decision: z.enum(["allow", "ask", "deny"]),
  reason: z.string(),
  askEveryTime: z.string().optional(),
});

/**
 * One call that asks.
 *
 * @example A network call that asks
 * ```ts
 * import type { ApprovalCall } from "./approver.ts";
 * const call: ApprovalCall = {
 *   callId: "c1",
 *   toolName: "shell",
 *   args: { command: "curl -sS http://127.0.0.1:8080/" },
 *   verdict: {
 *     decision: "ask",
 *     reason: "curl reaches the network",
 *     parts: [{ riskClass: "network", subject: "curl", targets: ["127.0.0.1"] }],
 *   },
 * };
 * if (call.verdict.decision !== "ask") throw new Error("only asking calls are sent");
 * ```
 */
export interface ApprovalCall {
  /** The tool-call id the answer refers to. */
  callId: string;
  /** Tool name, e.g. `shell`. */
  toolName: string;
  /** The call's arguments as the model sent them (already parsed from JSON). */
  args: Record<string, unknown>;
  /** The classifier's verdict; its decision is `ask`. */
  verdict: Verdict;
  /** What to show the operator instead of the arguments: the full command or a file-write diff. */
  preview?: string;
  /** The whole diff when `preview` leaves part of it out (counted in its last line). */
  fullPreview?: string;
  /**
   * Who asks, when it is not the run itself: a sub-agent of `delegate_tasks`, e.g.
   * `sub-agent 2 of 3 ("update the changelog")`. The approver names it in the prompt.
   * @default the run's own call
   */
  agent?: string;
}

/** Zod schema of one call in an {@linkcode ApprovalRequest}. */
export const ApprovalCallSchema: z.ZodType<ApprovalCall> = z.object({
  callId: z.string().min(1),
  toolName: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  verdict: VerdictSchema,
  preview: z.string().optional(),
  fullPreview: z.string().optional(),
  agent: z.string().optional(),
});

/**
 * One batch: only the calls of one model turn whose verdict decision is `ask`.
 *
 * @example An empty batch
 * ```ts
 * import type { ApprovalRequest } from "./approver.ts";
 * const request: ApprovalRequest = { calls: [] };
 * if (request.calls.length !== 0) throw new Error("empty");
 * ```
 */
export interface ApprovalRequest {
  /** The asking calls, in the order the model made them. */
  calls: ApprovalCall[];
}

/** Zod schema of an {@linkcode ApprovalRequest}. */
export const ApprovalRequestSchema: z.ZodType<ApprovalRequest> = z.object({
  calls: z.array(ApprovalCallSchema),
});

/**
 * The answer for one call. A denial goes back to the model as data with its reason.
 *
 * @example Approve a call's classes for the rest of the session
 * ```ts
 * import type { ApprovalAnswer } from "./approver.ts";
 * const answer: ApprovalAnswer = { callId: "c1", approved: true, scope: "class", reason: "the operator said always" };
 * if (!answer.approved) throw new Error("approved");
 * ```
 */
export interface ApprovalAnswer {
  /** The call it answers. */
  callId: string;
  /** Whether the call may run. */
  approved: boolean;
  /** `once`: this call only; `class`: the operator approved the call's classes for the run. */
  scope: "once" | "class";
  /** Why it was denied (or how it was approved), readable by the model and the operator. */
  reason?: string;
}

/** Zod schema of an {@linkcode ApprovalAnswer}. */
export const ApprovalAnswerSchema: z.ZodType<ApprovalAnswer> = z.object({
  callId: z.string().min(1),
  approved: z.boolean(),
  scope: z.enum(["once", "class"]),
  reason: z.string().optional(),
});

/**
 * Decides the asking calls of one batch.
 *
 * Contract: the result holds exactly one answer per call of the request, in the request's order.
 * Implementations never throw for a missing person or terminal (they deny with a reason); they
 * reject with `signal.reason` when `signal` aborts.
 *
 * @example A scripted approver for tests
 * ```ts
 * import type { ApprovalRequest, Approver } from "./approver.ts";
 * const approveAll: Approver = {
 *   decide: (request: ApprovalRequest) =>
 *     Promise.resolve(request.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" as const }))),
 * };
 * const answers = await approveAll.decide({ calls: [] });
 * if (answers.length !== 0) throw new Error("one answer per call");
 * ```
 */
export interface Approver {
  /**
   * Decide every asking call of one batch.
   *
   * @param request the calls whose verdict decision is `ask`
   * @param signal aborts a pending question
   * @returns one answer per call, in order
   */
  decide(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer[]>;
}
