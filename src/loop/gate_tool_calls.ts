/**
 * The approval gate between a model reply and its tool calls: each call is classified; `deny`
 * is refused, `allow` runs, and every `ask` of the batch goes to the approver in one request
 * (design §3). An approved call runs with its verdict, which decides its sandbox scope.
 *
 * @module
 */
import type { ClassificationRule } from "../../tools/_catalogue/mod.ts";
import type { Approver } from "../approval/approver.ts";
import type { ToolInvocation } from "../broker/tool_broker.ts";
import type { Verdict } from "../danger/verdict.ts";
import type { PreparedCall } from "./prepare_tool_call.ts";
import type { RunContext } from "./run_context.ts";
import { providedRule, type ResolvedTool } from "./tool_set.ts";

export type { PreparedCall } from "./prepare_tool_call.ts";

/** How the loop classifies and approves tool calls. */
export interface ToolGate {
  /**
   * The verdict on a validated call, at the run's trust level. Pure and synchronous. `rule` is
   * set for a provided tool's call (its provider's rule); a built-in tool's rule is in its
   * catalogue entry.
   */
  classify(
    call: { name: string; args: Record<string, unknown>; rule?: ClassificationRule },
  ): Verdict;
  /**
   * Resolves when the gate can classify (a host's classifier and broker may still be starting
   * when its run's first request leaves); rejects with what failed to start. Awaited before a
   * batch is classified. @default ready at once
   */
  ready?(): Promise<void>;
  /** Answers the calls that ask. */
  approver: Approver;
  /**
   * What the operator sees of an asking call beyond its arguments, e.g. the diff of a file write;
   * `{ text, full }` when `text` leaves part of it out (the approver can show `full`).
   * @default the shell command, if any
   */
  preview?(
    call: { name: string; args: Record<string, unknown> },
  ): Promise<string | { text: string; full: string } | undefined>;
}

/**
 * Gate a batch. Calls that were refused before (bad JSON, unknown tool) pass through unchanged.
 *
 * Each asking call is journaled (`recordApprovalRequested`) before the approver is asked.
 *
 * @returns the same batch, aligned by position: approved calls carry their verdict
 * @throws what the approver throws (an abort of the run), or the journal's error
 */
export async function gateToolCalls(
  context: RunContext,
  gate: ToolGate,
  batch: readonly PreparedCall[],
): Promise<PreparedCall[]> {
  await gate.ready?.();
  const out = [...batch];
  const asks: {
    index: number;
    invocation: ToolInvocation;
    tool: ResolvedTool;
    verdict: Verdict;
  }[] = [];
  batch.forEach((entry, index) => {
    if (!("invocation" in entry)) return;
    const { invocation, tool } = entry;
    const call = { name: invocation.name, args: invocation.args };
    const rule = providedRule(tool, call);
    const verdict = gate.classify(rule === undefined ? call : { ...call, rule });
    if (verdict.decision === "deny") {
      out[index] = denied(`Not run: ${verdict.reason}`);
    } else if (verdict.decision === "allow") {
      out[index] = { tool, invocation: { ...invocation, verdict } };
    } else {
      asks.push({ index, invocation, tool, verdict });
    }
  });
  if (asks.length === 0) return out;
  // Before anyone is asked: a resume asks a call that was waiting again (design §8.3).
  await context.journal.recordApprovalRequested?.(
    asks.map(({ invocation, verdict }) => ({ callId: invocation.id, verdict })),
  );
  context.emit("approval_requested", {
    call_ids: asks.map((a) => a.invocation.id),
    classes: [...new Set(asks.flatMap((a) => a.verdict.parts.map((p) => p.riskClass)))],
  });
  const previews = await Promise.all(
    asks.map(({ invocation }) =>
      gate.preview ? gate.preview(invocation).catch(() => undefined) : Promise.resolve(
        typeof invocation.args.command === "string" ? invocation.args.command : undefined,
      )
    ),
  );
  const answers = await gate.approver.decide({
    calls: asks.map(({ invocation, verdict }, i) => ({
      callId: invocation.id,
      toolName: invocation.name,
      args: invocation.args,
      verdict,
      ...previewFields(previews[i]),
    })),
  }, context.signal);
  for (const { index, invocation, tool, verdict } of asks) {
    const answer = answers.find((a) => a.callId === invocation.id);
    const approved = answer?.approved === true;
    context.emit("approval_answered", {
      call_id: invocation.id,
      approved,
      scope: answer?.scope ?? "once",
      ...(answer?.reason ? { reason: context.redact(answer.reason) } : {}),
    }, { tool: invocation.name });
    // The approver's reason says who refused and how to allow it; it stands on its own.
    const why = answer?.reason?.replace(/[.\s]+$/, "") ?? "The operator did not approve this call";
    out[index] = approved
      ? { tool, invocation: { ...invocation, verdict } }
      : denied(`${why}. It asked because ${verdict.reason}`);
  }
  return out;
}

function previewFields(
  preview: string | { text: string; full: string } | undefined,
): { preview?: string; fullPreview?: string } {
  if (preview === undefined) return {};
  return typeof preview === "string"
    ? { preview }
    : { preview: preview.text, fullPreview: preview.full };
}

function denied(message: string): PreparedCall {
  return { refusal: { ok: false, error: { kind: "denied", message } } };
}
