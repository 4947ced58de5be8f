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

/** Zod schema of one call in an {@linkcode ApprovalRequest}. */
export const ApprovalCallSchema = z.object({
  /** The tool-call id the answer refers to. */
  callId: z.string().min(1),
  /** Tool name, e.g. `shell`. */
  toolName: z.string().min(1),
  /** The call's arguments as the model sent them (already parsed from JSON). */
  args: z.record(z.string(), z.unknown()),
  /** The classifier's verdict; its decision is `ask`. */
  verdict: VerdictSchema,
  /** What to show the operator instead of the arguments: the full command or a file-write diff. */
  preview: z.string().optional(),
  /** The whole diff when `preview` leaves part of it out (counted in its last line). */
  fullPreview: z.string().optional(),
});
/** One call that asks. */
export type ApprovalCall = z.infer<typeof ApprovalCallSchema>;

/** Zod schema of an {@linkcode ApprovalRequest}. */
export const ApprovalRequestSchema = z.object({ calls: z.array(ApprovalCallSchema) });
/** One batch: only the calls of one model turn whose verdict decision is `ask`. */
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** Zod schema of an {@linkcode ApprovalAnswer}. */
export const ApprovalAnswerSchema = z.object({
  callId: z.string().min(1),
  approved: z.boolean(),
  /** `once`: this call only; `class`: the operator approved the call's classes for the run. */
  scope: z.enum(["once", "class"]),
  /** Why it was denied (or how it was approved), readable by the model and the operator. */
  reason: z.string().optional(),
});
/** The answer for one call. A denial goes back to the model as data with its reason. */
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;

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
   * @param request the calls whose verdict decision is `ask`
   * @param signal aborts a pending question
   * @returns one answer per call, in order
   */
  decide(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer[]>;
}
