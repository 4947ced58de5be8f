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
import type { RiskClass, Verdict } from "../danger/verdict.ts";
import { dirname } from "node:path";
import type { ToolGate } from "../loop/gate_tool_calls.ts";
import type { WorkspaceFacts } from "../broker/workspace_guard.ts";
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
    /** The host's private scratch (`TMPDIR` of its programs). */
    scratchDir?: string;
    /** Host ports forwarded into the host's network namespace. */
    hostPorts?: readonly number[];
    /** The workspace's protected files and repository programs, scanned before each call. */
    facts?: () => WorkspaceFacts;
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
    ...(options.scratchDir ? { scratchDir: options.scratchDir } : {}),
    hostPorts: options.hostPorts ?? [],
  };
  const withFacts = (): ClassifyContext => {
    if (options.facts === undefined) return context;
    const facts = options.facts();
    return {
      ...context,
      repository: {
        protectedExtra: facts.protectedExtra,
        programs: facts.repoPrograms,
        repositories: facts.repositories,
      },
    };
  };
  return {
    classify: (call) => grantableFileWrite(call, classifier.classifyToolCall(call, withFacts())),
    approver,
    preview: (call) => previewCall(call, workspace),
  };
}

/**
 * A file-tool write outside the workspace is granted as that one file, in its existing directory
 * (odek creates no directory the approval did not name): one whose directory is missing is
 * refused before anyone is asked, naming what works.
 */
function grantableFileWrite(call: { name: string }, verdict: Verdict): Verdict {
  if (verdict.decision === "deny" || (call.name !== "write_file" && call.name !== "patch")) {
    return verdict;
  }
  for (const part of verdict.parts) {
    if (part.riskClass !== "system_write" && part.riskClass !== "destructive") continue;
    for (const target of part.targets) {
      const dir = dirname(target);
      let isDir = false;
      try {
        isDir = Deno.statSync(dir).isDirectory;
      } catch {
        // Missing.
      }
      if (isDir) continue;
      return {
        ...verdict,
        decision: "deny",
        reason:
          `${part.subject}: odek can grant ${target} only as a single file in an existing directory, and ${dir} is not one: create the directory first, or ask the operator to add one with --add-dir DIR`,
      };
    }
  }
  return verdict;
}

/**
 * The shell command, or for a file write or patch the diff against the file as it is now: the
 * first 400 diff lines, and the whole diff when that leaves some out (the approver offers it).
 */
async function previewCall(
  call: { name: string; args: Record<string, unknown> },
  workspace: string,
): Promise<string | { text: string; full: string } | undefined> {
  if (typeof call.args.command === "string") return call.args.command;
  const isEdit = call.name === "write_file" || call.name === "patch";
  if (!isEdit || typeof call.args.path !== "string") return undefined;
  // Opened, then verified: a symlink swapped in is refused, never read (issue 12).
  const read = await readVerifiedFile(workspace, call.args.path, { maxBytes: 1024 * 1024 });
  const before = read.type === "file" && read.size <= 1024 * 1024
    ? new TextDecoder().decode(read.bytes)
    : null; // a new file (or one not read): the whole content is added
  const note = read.type === "refused" ? `(current content not shown: ${read.reason})\n` : "";
  const path = call.args.path;
  const render = (maxLines?: number) =>
    call.name === "patch"
      ? renderPatchPreview(before, call.args, path, maxLines ? { maxLines } : {})
      : renderWriteDiff(before, String(call.args.content ?? ""), {
        path,
        ...(maxLines ? { maxLines } : {}),
      });
  const text = render();
  if (text === undefined) return undefined;
  const full = render(Number.MAX_SAFE_INTEGER)!;
  return full === text ? note + text : { text: note + text, full: note + full };
}
