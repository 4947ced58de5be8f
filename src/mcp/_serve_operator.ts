/**
 * The operator of `odek mcp serve`'s session hosts is the MCP client (private to `mcp/`): a call
 * that asks, and a `clarify` question, are put to the client through elicitation when the
 * client can answer one (a 2025-11-25 connection that declared the `elicitation` capability, on
 * stdio or a stateful HTTP session; on 2026-07-28 the asker of a direct call answers through an
 * input-required result, `_serve_input_required.ts`); otherwise the call is refused with the reason and the
 * question is answered "nobody can answer". The client of the request being served is set per
 * request (`bind`), since a host runs one run at a time.
 *
 * @module
 */
import type { ApprovalAnswer, ApprovalRequest, Approver } from "../approval/approver.ts";
import type { Clarifier, ClarifyAnswer } from "../approval/clarifier.ts";
import type { ElicitationAnswer, ElicitationRequest } from "../approval/elicitation.ts";
import { elicitForm } from "./_serve_elicit_form.ts";

/** One elicitation the operator sends (form mode). */
export interface ElicitForm {
  message: string;
  requestedSchema: {
    type: "object";
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
}

/** What the client answered. */
export interface ElicitReply {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** The client of the request being served. */
export interface McpAsker {
  /** Why the client cannot be asked; `undefined` when it can. */
  readonly cannotAsk: string | undefined;
  /** Ask it (only when `cannotAsk` is undefined). */
  elicit(form: ElicitForm, signal?: AbortSignal): Promise<ElicitReply>;
}

/** The approver and clarifier of one host, answered by the client bound to it. */
export class McpOperator implements Approver, Clarifier {
  #asker: McpAsker | undefined;

  /** Answer through `asker` until the returned function is called. */
  bind(asker: McpAsker): () => void {
    this.#asker = asker;
    return () => {
      if (this.#asker === asker) this.#asker = undefined;
    };
  }

  async decide(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer[]> {
    const asker = this.#asker;
    const why = asker ? asker.cannotAsk : "no MCP request is being served";
    const answers: ApprovalAnswer[] = [];
    for (const call of request.calls) {
      const what = `${call.toolName}: ${call.verdict.reason}`;
      if (why !== undefined || !asker) {
        answers.push({
          callId: call.callId,
          approved: false,
          scope: "once",
          reason:
            `Not approved: odek asks before this call (${what}) and ${why}. Approve the class in odek's configuration (trustedClasses with trustLevel "trusted") or use a client that supports elicitation.`,
        });
        continue;
      }
      const shown = call.preview ?? JSON.stringify(call.args);
      const reply = await asker.elicit({
        message: `odek asks before running ${what}\n${shown.slice(0, 4000)}`,
        requestedSchema: {
          type: "object",
          properties: {
            approve: {
              type: "boolean",
              title: "Run this call",
              description: "Run this one call with the scope shown",
              default: false,
            },
          },
          required: ["approve"],
        },
      }, signal);
      const approved = reply.action === "accept" && reply.content?.approve === true;
      answers.push({
        callId: call.callId,
        approved,
        scope: "once",
        reason: approved
          ? "approved by the MCP client"
          : `Not approved: the MCP client answered ${reply.action}${
            reply.action === "accept" ? " without approving" : ""
          }.`,
      });
    }
    return answers;
  }

  async ask(question: string, signal?: AbortSignal): Promise<ClarifyAnswer> {
    const asker = this.#asker;
    const why = asker ? asker.cannotAsk : "no MCP request is being served";
    if (why !== undefined || !asker) {
      return {
        answered: false,
        reason:
          `Nobody can answer: ${why}. Continue on your best judgement and state the assumption you made in your final answer.`,
      };
    }
    const reply = await asker.elicit({
      message: question.slice(0, 4000),
      requestedSchema: {
        type: "object",
        properties: { answer: { type: "string", title: "Answer" } },
        required: ["answer"],
      },
    }, signal);
    const answer = reply.content?.answer;
    return reply.action === "accept" && typeof answer === "string" ? { answered: true, answer } : {
      answered: false,
      reason:
        `The MCP client answered ${reply.action}. Continue on your best judgement and state the assumption you made in your final answer.`,
    };
  }

  /**
   * A form from a tool of the host (an MCP server's elicitation inside a `run_task`, a library
   * tool's question), put to the MCP client; URL mode is declined (odek opens no URL for you).
   */
  async elicit(request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer> {
    const asker = this.#asker;
    const why = asker ? asker.cannotAsk : "no MCP request is being served";
    if (why !== undefined || !asker) {
      return { action: "decline", reason: `Nobody can answer: ${why}.` };
    }
    if (request.mode === "url") {
      return { action: "decline", reason: "odek mcp serve forwards form elicitations only" };
    }
    const reply = await asker.elicit(elicitForm(request.message, request.fields), signal);
    if (reply.action === "accept") {
      return {
        action: "accept",
        content: (reply.content ?? {}) as Record<string, string | number | boolean | string[]>,
      };
    }
    return { action: reply.action, reason: `The MCP client answered ${reply.action}.` };
  }
}
