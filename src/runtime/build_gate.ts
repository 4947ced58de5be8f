/**
 * The approval side of a session host: the gate (classifier at the host's trust level, the
 * surface's approver, previews).
 *
 * @module
 */
import { readVerifiedFile } from "../_util/read_verified_file.ts";
import type { Approver } from "../approval/approver.ts";
import { renderPatchPreview } from "../approval/render_patch_preview.ts";
import { renderWriteDiff } from "../approval/render_write_diff.ts";
import type { AddDir } from "../config/add_dirs.ts";
import type { DenyRule } from "../config/deny_rule.ts";
import type { TrustLevel } from "../config/trust_level.ts";
import type { Classifier, ClassifyContext } from "../danger/classifier.ts";
import type { RiskClass } from "../danger/verdict.ts";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { ResolvedWorkspace, Settings } from "./compose.ts";

/**
 * The approval gate of a session host: the danger classifier at the host's trust level with its
 * deny rules, and the approver the surface gave (the terminal, a `--yes` policy, a browser, …).
 * A call a deny rule names is refused before any approver sees it.
 */
export function buildGate(
  settings: Settings,
  resolved: ResolvedWorkspace,
  options: {
    classifier: Classifier;
    approver: Approver;
    trustLevel: TrustLevel;
    addDirs: readonly AddDir[];
    /** The host's deny rules (user and project layers). @default none */
    denyRules?: readonly DenyRule[];
  },
): ToolGate {
  const { workspace, protectedRoots } = resolved;
  const { classifier, approver } = options;
  const context: ClassifyContext = {
    workspace,
    home: settings.paths.home,
    protectedRoots,
    addDirs: [...options.addDirs],
    trustLevel: options.trustLevel,
    trustedClasses: settings.config.trustedClasses as RiskClass[],
    denyRules: [...(options.denyRules ?? [])],
  };
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
