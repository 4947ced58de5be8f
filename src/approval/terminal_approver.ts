/**
 * The interactive approver: asks the person at the controlling terminal.
 *
 * @module
 */
import type { RiskClass } from "../danger/verdict.ts";
import type { ApprovalAnswer, ApprovalCall, ApprovalRequest, Approver } from "./approver.ts";
import { ApprovalMemory } from "./approval_memory.ts";
import { askingClasses } from "./asking_classes.ts";
import { escapeControl, renderCall } from "./_render_call.ts";
import {
  type OperatorTerminal,
  type PromptLines,
  type PromptWriter,
  withTerminal,
} from "./_tty_lines.ts";

export type { OperatorTerminal, PromptWriter };

/** Options for {@linkcode TerminalApprover}. */
export interface TerminalApproverOptions {
  /** The terminal device answers are read from. Tests pass a missing path. @default "/dev/tty" */
  ttyPath?: string;
  /**
   * A terminal someone else reads (the interactive session's raw keyboard), asked instead of
   * `ttyPath`; where it reads single keys, y / a / n / d are answered with one key.
   * @default none: `ttyPath`
   */
  terminal?: OperatorTerminal;
  /**
   * Where the prompt is written. Not the terminal device itself: Deno 2.9 lets a program open
   * `/dev/tty` for reading with `--allow-read` but requires `--allow-all` to open it for writing.
   * @default Deno.stderr
   */
  output?: PromptWriter;
  /** Grants and friction state for this run. @default new ApprovalMemory() */
  memory?: ApprovalMemory;
  /** Unrecognised answers tolerated per call before it is denied. @default 3 */
  maxAttempts?: number;
}

/**
 * Asks at the controlling terminal (design §3, odek-go §5.2): answers are read from `/dev/tty`,
 * never from standard input, so piped input cannot answer. The prompt goes to `output`
 * (standard error by default). Per batch it prints one prompt listing every
 * asking call in full (tool, the whole command, path or preview with control characters made
 * visible, each part's class, subject and targets, and the reason), then asks per call:
 *
 * - `y`: run it once; `a`: run it and approve its classes for the rest of the run (offered only
 *   when no class is `destructive`, `privileged` or `unknown`); `n`: refuse, then an optional
 *   reason passed to the model.
 * - Friction: when {@linkcode ApprovalMemory.needsFriction} holds (3 approvals of a class within
 *   60 s), only the typed word `approve` runs the call (once).
 * - Calls whose classes were all granted with `a` earlier are approved without asking.
 * - If the terminal cannot be opened (no controlling terminal), every asking call is denied with
 *   a reason saying so. End of input denies the remaining calls.
 *
 * @example Without a terminal every ask is denied
 * ```ts
 * import { TerminalApprover } from "./terminal_approver.ts";
 * const approver = new TerminalApprover({ ttyPath: "/nonexistent/tty" });
 * const [answer] = await approver.decide({ calls: [{
 *   callId: "c1", toolName: "shell", args: { command: "curl example.com" },
 *   verdict: { decision: "ask", reason: "curl: network", parts: [{ riskClass: "network", subject: "curl", targets: [] }] },
 * }] });
 * if (answer.approved || !/no terminal/.test(answer.reason ?? "")) throw new Error(answer.reason);
 * ```
 */
export class TerminalApprover implements Approver {
  readonly #ttyPath: string | OperatorTerminal;
  readonly #output: PromptWriter;
  readonly #memory: ApprovalMemory;
  readonly #maxAttempts: number;

  /** @param options terminal path, run memory and attempts */
  constructor(options: TerminalApproverOptions = {}) {
    this.#ttyPath = options.terminal ?? options.ttyPath ?? "/dev/tty";
    this.#output = options.output ?? Deno.stderr;
    this.#memory = options.memory ?? new ApprovalMemory();
    this.#maxAttempts = options.maxAttempts ?? 3;
  }

  /**
   * Ask about every call of the batch.
   *
   * @param request the asking calls
   * @param signal aborting closes the terminal and rejects with `signal.reason`
   * @returns one answer per call, in order
   */
  async decide(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer[]> {
    signal?.throwIfAborted();
    const calls = request.calls.map((call) => ({ call, classes: askingClasses(call.verdict) }));
    // A call that asks every time (a write to a file the host runs later) is never covered by
    // an earlier "always".
    const granted = (call: ApprovalCall, classes: RiskClass[]) =>
      call.verdict.askEveryTime === undefined && this.#memory.isGranted(classes);
    if (calls.every(({ call, classes }) => granted(call, classes))) {
      return calls.map(({ call }) => grantedAnswer(call));
    }
    return await withTerminal(this.#ttyPath, this.#output, signal, (cause) => {
      const why = `no terminal was available to ask the operator (${cause})`;
      return calls.map(({ call, classes }) =>
        granted(call, classes) ? grantedAnswer(call) : {
          callId: call.callId,
          approved: false,
          scope: "once" as const,
          reason: `Denied: ${why}; run odek from a terminal, or with --yes / --yes=<class>`,
        }
      );
    }, async (tty) => {
      const plural = calls.length === 1 ? "" : "s";
      const listing = calls.map(({ call, classes }, i) => renderCall(i + 1, call, classes));
      await tty.write(
        `\nodek asks before running ${calls.length} tool call${plural}:\n${listing.join("\n")}\n`,
      );
      const answers: ApprovalAnswer[] = [];
      for (const [i, { call, classes }] of calls.entries()) {
        answers.push(await this.#ask(tty, i + 1, call, classes));
      }
      return answers;
    });
  }

  async #ask(
    tty: PromptLines,
    n: number,
    call: ApprovalCall,
    classes: RiskClass[],
  ): Promise<ApprovalAnswer> {
    const deny = (reason: string): ApprovalAnswer => ({
      callId: call.callId,
      approved: false,
      scope: "once",
      reason,
    });
    const everyTime = call.verdict.askEveryTime !== undefined;
    if (!everyTime && this.#memory.isGranted(classes)) return grantedAnswer(call);
    const friction = this.#memory.needsFriction(classes);
    const offerAlways = !friction && !everyTime && this.#memory.canGrant(classes);
    const more = call.fullPreview !== undefined ? ", d = show the whole diff" : "";
    const question = friction
      ? `Call ${n}: you approved ${classes.join(", ")} several times in the last minute. ` +
        `Type the word approve to run it once, or n to refuse${more}: `
      : `Call ${n} (${call.toolName}): y = yes once${
        offerAlways ? `, a = always for ${classes.join(", ")} in this run` : ""
      }, n = no${more}: `;
    for (let attempt = 0; attempt < this.#maxAttempts; attempt++) {
      await tty.write(question);
      const choices = `yn${offerAlways ? "a" : ""}${more ? "d" : ""}`;
      const line = !friction && tty.readKey ? await tty.readKey(choices) : await tty.readLine();
      if (line === null) return deny("Denied: the terminal closed before the operator answered");
      const answer = line.trim().toLowerCase();
      if (answer === "d" && call.fullPreview !== undefined) {
        const lines = escapeControl(call.fullPreview).split("\n").map((l) => `     | ${l}`);
        await tty.write(`${lines.join("\n")}\n`);
        attempt--; // seeing the diff is not a wrong answer
        continue;
      }
      if (answer === "n" || answer === "no") {
        await tty.write("Reason for the model (optional, Enter to skip): ");
        const reason = (await tty.readLine())?.trim() ?? "";
        return deny(`Denied by the operator${reason ? `: ${reason}` : ""}`);
      }
      if (friction ? answer === "approve" : answer === "y" || answer === "yes") {
        this.#memory.recordApproval(classes);
        return {
          callId: call.callId,
          approved: true,
          scope: "once",
          reason: "approved by the operator",
        };
      }
      if (offerAlways && answer === "a") {
        this.#memory.recordApproval(classes);
        this.#memory.grant(classes);
        return {
          callId: call.callId,
          approved: true,
          scope: "class",
          reason: `approved by the operator for ${classes.join(", ")} for the rest of the run`,
        };
      }
      await tty.write(
        friction
          ? `Please type approve or n.\n`
          : `Please answer y, ${offerAlways ? "a, " : ""}or n.\n`,
      );
    }
    return deny(`Denied: no valid answer after ${this.#maxAttempts} attempts`);
  }
}

function grantedAnswer(call: ApprovalCall): ApprovalAnswer {
  return {
    callId: call.callId,
    approved: true,
    scope: "class",
    reason: "approved earlier in this run for its classes",
  };
}
