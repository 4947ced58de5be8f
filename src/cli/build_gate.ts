/**
 * The approval side of a run: the gate (classifier at the run's trust level, approver, previews)
 * and who answers `clarify`.
 *
 * @module
 */
import { readVerifiedFile } from "../_util/read_verified_file.ts";
import { NonInteractiveApprover } from "../approval/non_interactive_approver.ts";
import { renderPatchPreview } from "../approval/render_patch_preview.ts";
import { renderWriteDiff } from "../approval/render_write_diff.ts";
import { TerminalApprover } from "../approval/terminal_approver.ts";
import { type Clarifier, NoOperatorClarifier } from "../approval/clarifier.ts";
import { TerminalClarifier } from "../approval/terminal_clarifier.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { ClassifyContext } from "../danger/classifier.ts";
import { createClassifier } from "../danger/create_classifier.ts";
import type { RiskClass } from "../danger/verdict.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { ResolvedWorkspace, Settings } from "./compose.ts";

/**
 * The approval gate of a run: the danger classifier at the run's trust level, and the approver:
 * `--yes` policy when given, else the terminal when odek has one, else deny every ask.
 */
export async function buildGate(
  settings: Settings,
  resolved: ResolvedWorkspace,
  yes: "all" | RiskClass[] | undefined,
  addDirs: readonly AddDir[] = [],
): Promise<ToolGate> {
  const { workspace, protectedRoots } = resolved;
  const classifier = await createClassifier();
  const context: ClassifyContext = {
    workspace,
    home: settings.paths.home,
    protectedRoots,
    addDirs: [...addDirs],
    trustLevel: settings.config.trustLevel,
    trustedClasses: settings.config.trustedClasses as RiskClass[],
  };
  const approver = yes !== undefined
    ? new NonInteractiveApprover({ yes })
    : (await hasTerminal())
    ? new TerminalApprover()
    : new NonInteractiveApprover();
  return {
    classify: (call) => classifier.classifyToolCall(call, context),
    approver,
    preview: (call) => previewCall(call, workspace),
  };
}

/** The shell command, or for a file write or patch the diff against the file as it is now. */
async function previewCall(
  call: { name: string; args: Record<string, unknown> },
  workspace: string,
): Promise<string | undefined> {
  if (typeof call.args.command === "string") return call.args.command;
  const isEdit = call.name === "write_file" || call.name === "patch";
  if (!isEdit || typeof call.args.path !== "string") return undefined;
  // Opened, then verified: a symlink swapped in is refused, never read (issue 12).
  const read = await readVerifiedFile(workspace, call.args.path, { maxBytes: 1024 * 1024 });
  const before = read.type === "file" && read.size <= 1024 * 1024
    ? new TextDecoder().decode(read.bytes)
    : null; // a new file (or one not read): the whole content is added
  const note = read.type === "refused" ? `(current content not shown: ${read.reason})\n` : "";
  if (call.name === "patch") return note + renderPatchPreview(before, call.args, call.args.path);
  return note + renderWriteDiff(before, String(call.args.content ?? ""), { path: call.args.path });
}

/**
 * Who answers the `clarify` tool: the person at the controlling terminal when there is one, else
 * nobody (every question is denied with a reason telling the model to go on).
 */
export async function buildClarifier(): Promise<Clarifier> {
  return (await hasTerminal())
    ? new TerminalClarifier()
    : new NoOperatorClarifier("no terminal is attached to this run");
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
