/**
 * The verdict on a call without a gate, derived from the tool's catalogue entry.
 *
 * @module
 */
import { findBuiltinTool } from "../../tools/_catalogue/mod.ts";
import type { ClassificationRule } from "../../tools/_catalogue/tool_entry.ts";
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

/** The classes a call may have without a gate: each grants only a contained scope (design §3). */
const CONTAINED: ReadonlySet<RiskClass> = new Set(["read", "local_write", "code_execution"]);

/** What {@linkcode fixedVerdict} reads of a tool: its catalogue entry has both. */
export interface UngatedTool {
  rule: ClassificationRule;
  classWithoutGate: RiskClass;
}

/**
 * The verdict on a call when the run has no gate (no classifier, no approver): the tool's class
 * without a gate, from its catalogue entry (or the `tool` given, for a provider's tool), without
 * judging the arguments.
 *
 * The reading file tools and the compute tools are one `read` part, `write_file` and `patch` one
 * `local_write` part, `shell` and `bg_start` one `code_execution` part, and those are `allow`:
 * each of those classes grants only a contained scope (design §3): at most the workspace
 * writable, no network, secrets and the protected roots invisible. A shell command that does more
 * than its class says (a `curl`, a write to `~/.bashrc`) simply fails inside the sandbox. Any other
 * class (the web tools' `network`), a call its rule says always asks (a detached `bg_start`) and a
 * name no built-in tool has are `deny`: without a gate nobody can approve them.
 *
 * Targets are the raw path argument as the model wrote it (the rule's default, `.` for `glob`,
 * when absent): it is resolved against the workspace, and realpath-checked, inside the tool
 * child. A command part and a `fixed` part have no targets; a `url` part has the URL's host.
 *
 * @param invocation the tool call (its `name` and `args`)
 * @param tool the tool's rule and class @default the built-in tool's catalogue entry
 * @returns a verdict with exactly one part
 *
 * @example Classify a write
 * ```ts
 * import { fixedVerdict } from "./fixed_verdict.ts";
 * const verdict = fixedVerdict({ name: "write_file", args: { path: "a.txt", content: "" } });
 * if (verdict.parts[0].riskClass !== "local_write") throw new Error("unexpected class");
 * if (verdict.decision !== "allow") throw new Error("unexpected decision");
 * const web = fixedVerdict({ name: "http_request", args: { url: "http://127.0.0.1:9/" } });
 * if (web.decision !== "deny") throw new Error("network without a gate");
 * ```
 */
export function fixedVerdict(
  invocation: ClassifiedCall,
  tool: UngatedTool | undefined = findBuiltinTool(invocation.name),
): Verdict {
  const { name, args } = invocation;
  if (tool === undefined) {
    return {
      parts: [{ riskClass: "unknown", subject: name, targets: [] }],
      decision: "deny",
      reason:
        `The tool "${name}" is not a built-in tool, and without a classifier it cannot be judged`,
    };
  }
  const { rule, classWithoutGate: riskClass } = tool;
  const str = (key: string) => (typeof args[key] === "string" ? args[key] as string : undefined);
  if (
    rule.kind === "command" && rule.alwaysAsk && args[rule.alwaysAsk.arg] === rule.alwaysAsk.equals
  ) {
    const subject = `${name} (${rule.alwaysAsk.label})`;
    return {
      parts: [{ riskClass: "unknown", subject, targets: [] }],
      decision: "deny",
      reason: `${subject} needs the operator's approval, and this run has no approver`,
    };
  }
  const target = rule.kind === "path"
    ? str(rule.arg) ?? rule.default
    : rule.kind === "glob"
    ? str(rule.base) ?? "."
    : rule.kind === "url"
    ? hostOf(args[rule.arg])
    : undefined;
  const subject = rule.kind === "command" ? str(rule.arg) ?? name : name;
  const parts = [{ riskClass, subject, targets: target ? [target] : [] }];
  return CONTAINED.has(riskClass)
    ? { parts, decision: "allow", reason: `${name} runs with its ${riskClass} scope (no gate)` }
    : {
      parts,
      decision: "deny",
      reason: `${name} needs ${riskClass} approval, and this run has no gate to ask for it`,
    };
}

function hostOf(url: unknown): string | undefined {
  try {
    return typeof url === "string" ? new URL(url).hostname || undefined : undefined;
  } catch {
    return undefined;
  }
}
