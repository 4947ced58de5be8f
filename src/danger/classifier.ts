/**
 * The classifier's interface and the context it classifies in (design §3). Built by
 * {@linkcode createClassifier}.
 *
 * @module
 */
import type { ClassificationRule } from "../../tools/_catalogue/tool_entry.ts";
import type { DenyRule } from "../config/deny_rule.ts";
import type { RepoProgram } from "./repo_programs.ts";
import type { RiskClass, TrustLevel, Verdict, VerdictPart } from "./verdict.ts";

/** Where a call would run, and the policy inputs. All paths absolute. */
export interface ClassifyContext {
  /** The workspace: relative paths resolve against it; writes inside it are `local_write`. */
  workspace: string;
  /** The user's home directory: `~` and `$HOME` expand to it. */
  home: string;
  /** Paths no call may read or write (`ODEK_HOME`, the install directory): touching one is `blocked`. */
  protectedRoots: string[];
  /** The run's trust level, for the decision. */
  trustLevel: TrustLevel;
  /** Classes pre-approved when `trustLevel` is `trusted` (ignored otherwise). @default [] */
  trustedClasses?: RiskClass[];
  /**
   * Directories the operator granted besides the workspace (`--add-dir`): a writable one is
   * treated like the workspace (writing inside it is `local_write`); a read-only one (`:ro`) like
   * any other directory. @default []
   */
  addDirs?: { path: string; readOnly: boolean }[];
  /** MCP servers whose tools are `code_execution` instead of `unknown`. @default [] */
  trustedMcpServers?: string[];
  /**
   * Deny rules of the user and project layers: a command, path or host one names gets a
   * `blocked` part (never allowed, asked or approved), whose detail names the rule and its layer.
   * @default []
   */
  denyRules?: DenyRule[];
  /**
   * The session host's private scratch directory (`TMPDIR` in every program sandbox): writes
   * inside it are `local_write`, and `$TMPDIR` and `mktemp` name it. Elsewhere under `/tmp` is
   * the host's `/tmp`, read-only in the sandbox: a write there is `system_write`. @default none
   */
  scratchDir?: string;
  /**
   * Host ports the operator granted (`--allow-host-port`): a loopback target on one of them is
   * the host's service, reported as `host port N (granted)`; every other loopback target is the
   * session's own loopback. @default []
   */
  hostPorts?: readonly number[];
  /**
   * What the workspace's repositories make the host run, from the core's scan before each call
   * (`WorkspaceGuard`): protected places besides the fixed names of
   * `tools/_catalogue/protected_paths.ts` (a `core.hooksPath` and included configuration inside
   * the workspace, relative to it), the programs the configuration sets
   * (`REPO_PROGRAM_KEYS`, hooks), and every `.git` entry. @default none
   */
  repository?: {
    protectedExtra: readonly string[];
    programs: readonly RepoProgram[];
    repositories: readonly string[];
  };
}

/** A tool call as the classifier reads it: structurally the broker's `ToolInvocation`. */
export interface ClassifiedToolCall {
  /** Tool name, e.g. `shell`, `read_file`, `github__create_issue`. */
  name: string;
  /** The call's arguments (validated or not: odd shapes classify as `unknown`). */
  args: Record<string, unknown>;
  /**
   * How to classify the call: a tool provider's rule for one of its tools. @default the built-in
   * tool's rule in the catalogue (`unknown` for a name it does not have)
   */
  rule?: ClassificationRule;
}

/**
 * A loaded classifier. Both methods are synchronous, pure and never throw for any input: what
 * cannot be read classifies as `unknown`.
 *
 * @example Classify a command
 * ```ts
 * import { createClassifier } from "./create_classifier.ts";
 * const classifier = await createClassifier();
 * const context = { workspace: "/srv/ws", home: "/home/ada", protectedRoots: ["/home/ada/.odek"], trustLevel: "standard" as const };
 * const parts = classifier.classifyCommand("git status && rm -rf ~/projects", context);
 * if (!parts.some((p) => p.riskClass === "destructive")) throw new Error("missed the rm");
 * ```
 */
export interface Classifier {
  /**
   * Classify a shell command: one part per risk found in every simple command it runs
   * (pipeline stages, list elements, substitutions, redirects, wrapped and nested payloads).
   *
   * @param command the command as the shell tool would run it (`bash -c <command>`)
   * @param context workspace, home and protected roots the paths resolve against
   * @returns the parts; empty for a command that does nothing (`""`, a comment)
   */
  classifyCommand(command: string, context: ClassifyContext): VerdictPart[];
  /**
   * Classify a whole tool call and decide it at `context.trustLevel`.
   *
   * @param call the tool name and arguments
   * @param context workspace, home, protected roots and the policy inputs
   * @returns the verdict: parts, decision and a reason naming the part that drove it
   */
  classifyToolCall(call: ClassifiedToolCall, context: ClassifyContext): Verdict;
}
