/**
 * Who answers for the operator in the CLI: the approver of asking tool calls and the clarifier
 * of `clarify`, from `--yes` and whether odek has a controlling terminal.
 *
 * @module
 */
import type { Approver } from "../approval/approver.ts";
import { type Clarifier, NoOperatorClarifier } from "../approval/clarifier.ts";
import { NonInteractiveApprover } from "../approval/non_interactive_approver.ts";
import { TerminalApprover } from "../approval/terminal_approver.ts";
import { TerminalClarifier } from "../approval/terminal_clarifier.ts";
import type { RiskClass } from "../danger/verdict.ts";
import type { OpenSessionOptions } from "../runtime/open_session_host.ts";
import { terminalMcpServerPrompt } from "../approval/terminal_mcp_server_prompt.ts";

/**
 * The approver — the `--yes` policy when given, else the terminal when odek has one, else deny
 * every ask — and the clarifier: the person at the terminal, else nobody (every question is
 * denied with a reason telling the model to go on).
 *
 * Calls that were waiting for approval when an earlier run stopped are asked again when there is
 * someone (the terminal) or a policy (`--yes`) to ask; else they are answered not started. The
 * workspace's project MCP servers are asked about at the terminal only (`--yes` never starts
 * one): without a terminal they stay inert, with a warning.
 *
 * @param yes the parsed `--yes` flag
 * @returns both, and whether to ask pending approvals again, for `runtime.openSession`
 *
 * @example Non-interactive with `--yes`
 * ```ts ignore
 * const { approver, clarifier } = await terminalOperator("all");
 * ```
 */
export async function terminalOperator(
  yes: "all" | RiskClass[] | undefined,
): Promise<
  {
    approver: Approver;
    clarifier: Clarifier;
    reaskApprovals: boolean;
    askProjectMcpServer?: OpenSessionOptions["askProjectMcpServer"];
  }
> {
  const terminal = await hasTerminal();
  return {
    ...(terminal ? { askProjectMcpServer: terminalMcpServerPrompt() } : {}),
    reaskApprovals: terminal || yes !== undefined,
    approver: yes !== undefined
      ? new NonInteractiveApprover({ yes })
      : terminal
      ? new TerminalApprover()
      : new NonInteractiveApprover(),
    clarifier: terminal
      ? new TerminalClarifier()
      : new NoOperatorClarifier("no terminal is attached to this run"),
  };
}

/** Whether this process has a controlling terminal to ask on. */
async function hasTerminal(): Promise<boolean> {
  try {
    (await Deno.open("/dev/tty", { read: true })).close();
    return true;
  } catch {
    return false;
  }
}
