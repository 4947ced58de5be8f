/**
 * The walking skeleton's fixed classification, used until the real classifier lands.
 *
 * @module
 */
import type { RiskClass, Verdict } from "./verdict.ts";

/**
 * The part of a tool call the classification reads: structurally the broker's `ToolInvocation`
 * (declared here because `danger/` sits left of `broker/` in the layer order and imports nothing
 * from it).
 */
export interface ClassifiedCall {
  /** Tool name, e.g. `read_file`. */
  name: string;
  /** Validated arguments. */
  args: Record<string, unknown>;
}

/** File tools that only read their `path`. */
const READ_TOOLS = new Set(["read_file", "glob", "search_files", "file_info", "tree", "head_tail"]);
/** File tools whose `path` defaults to the workspace. */
const DEFAULT_DOT = new Set(["glob", "search_files", "tree"]);
/** Tools of the compute child: they touch nothing. */
const COMPUTE_TOOLS = new Set(["math_eval", "diff", "json_query", "checksum", "base64"]);
const BG_READ_TOOLS = new Set(["bg_list", "bg_status", "bg_output", "bg_stop"]);

/**
 * Classify a built-in tool call by its tool name alone, without looking at its arguments.
 *
 * This is the fixed, safe scope of the walking skeleton, not a classifier: the reading file tools
 * (`read_file`, `glob`, `search_files`, `file_info`, `tree`, `head_tail`) and the compute tools
 * are one `read` part, `write_file` and `patch` one `local_write` part, `shell` one
 * `code_execution` part, and the decision is always `allow`. It is safe because each of those classes grants only a scope
 * that is contained (design §3): at most the workspace writable, no network, secrets and the
 * protected roots invisible. A shell command that does more than its class says (a `curl`, a write
 * to `~/.bashrc`) simply fails inside the sandbox. Any other tool name is one `unknown` part with
 * the decision `deny`.
 *
 * Targets are the raw `path` argument as the model wrote it (`glob`, `search_files` and `tree`
 * default to `.`): it is resolved against the workspace, and realpath-checked, inside the tool
 * child. A shell part and a compute part have no targets.
 *
 * @param invocation the tool call (its `name` and `args`)
 * @returns a verdict with exactly one part
 *
 * @example Classify a write
 * ```ts
 * import { fixedVerdict } from "./fixed_verdict.ts";
 * const verdict = fixedVerdict({ name: "write_file", args: { path: "a.txt", content: "" } });
 * if (verdict.parts[0].riskClass !== "local_write") throw new Error("unexpected class");
 * if (verdict.decision !== "allow") throw new Error("unexpected decision");
 * ```
 */
export function fixedVerdict(invocation: ClassifiedCall): Verdict {
  const { name, args } = invocation;
  if (name === "bg_start" && args.detach === true) {
    return {
      parts: [{ riskClass: "unknown", subject: `${name} (detached)`, targets: [] }],
      decision: "deny",
      reason:
        "A detached background job needs the operator's approval, and this run has no approver",
    };
  }
  const riskClass: RiskClass | undefined = READ_TOOLS.has(name) || COMPUTE_TOOLS.has(name) ||
      BG_READ_TOOLS.has(name)
    ? "read"
    : name === "write_file" || name === "patch"
    ? "local_write"
    : name === "shell" || name === "bg_start"
    ? "code_execution"
    : undefined;
  if (riskClass === undefined) {
    return {
      parts: [{ riskClass: "unknown", subject: name, targets: [] }],
      decision: "deny",
      reason: `The tool "${name}" is not a built-in tool of the walking skeleton`,
    };
  }
  const rawPath = typeof args.path === "string"
    ? args.path
    : DEFAULT_DOT.has(name)
    ? "."
    : undefined;
  const targets = riskClass === "code_execution" || COMPUTE_TOOLS.has(name) || rawPath === undefined
    ? []
    : [rawPath];
  const subject = (name === "shell" || name === "bg_start") && typeof args.command === "string"
    ? args.command
    : name;
  return {
    parts: [{ riskClass, subject, targets }],
    decision: "allow",
    reason: `${name} runs with the fixed ${riskClass} scope of the walking skeleton`,
  };
}
