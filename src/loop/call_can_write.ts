/**
 * Whether a call's scope can write the workspace: the test that decides which steps get a
 * checkpoint before and after them (design §5).
 *
 * @module
 */
import type { RiskClass } from "../danger/verdict.ts";
import type { PreparedCall } from "./prepare_tool_call.ts";

/** Risk classes whose scope makes the workspace (or named targets, maybe inside it) writable. */
const WRITING: ReadonlySet<RiskClass> = new Set([
  "local_write",
  "code_execution",
  "system_write",
  "destructive",
]);

/**
 * Whether the call, as gated, will run with a scope that can write the workspace: one of its
 * verdict's parts is `local_write`, `code_execution`, `system_write` or `destructive` (without
 * a verdict, the tool's class without a gate). A refused call and a core tool (`plan`,
 * `clarify`) never write.
 *
 * @example
 * ```ts
 * import { callCanWrite } from "./call_can_write.ts";
 * if (callCanWrite({ refusal: { ok: false, error: { kind: "denied", message: "no" } } })) {
 *   throw new Error("a refused call runs nothing");
 * }
 * ```
 */
export function callCanWrite(prepared: PreparedCall): boolean {
  if (!("invocation" in prepared)) return false;
  const { invocation, tool } = prepared;
  const source = tool.source;
  if (source.type === "builtin" && source.entry.category === "core") return false;
  if (invocation.verdict) return invocation.verdict.parts.some((p) => WRITING.has(p.riskClass));
  const fallback = source.type === "builtin"
    ? source.entry.classWithoutGate
    : source.tool.classWithoutGate ?? "unknown";
  return WRITING.has(fallback as RiskClass);
}
