import type { ApprovalCall } from "../../src/approval/approver.ts";
import type { RiskClass } from "../../src/danger/verdict.ts";

/** An asking shell call whose verdict has one part per class (plus a contained `read` part). */
export function askingCall(callId: string, classes: RiskClass[], command = "cmd"): ApprovalCall {
  return {
    callId,
    toolName: "shell",
    args: { command },
    verdict: {
      decision: "ask",
      reason: `${command}: ${classes[0] ?? "none"}`,
      parts: [
        { riskClass: "read", subject: "ls", targets: [] },
        ...classes.map((riskClass) => ({ riskClass, subject: `${riskClass} part`, targets: [] })),
      ],
    },
  };
}
