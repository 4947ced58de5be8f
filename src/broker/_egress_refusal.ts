/**
 * The model's message for a call the egress proxy refused, made from the refusal's fields (the
 * destination the child reported, the reason the proxy reported), never from the text of another
 * message.
 *
 * @module
 */
import { EGRESS_POLICY } from "../../tools/_catalogue/tool_failure.ts";
import type { EgressDecision } from "./egress_proxy.ts";
import type { EgressRefusalDetail, ToolResult } from "./tool_broker.ts";

/**
 * Say which destination was refused and, when the proxy's decision is known, why.
 *
 * @param detail the destination, and the proxy's decision if known
 * @returns the message for the model
 *
 * @example
 * ```ts
 * import { egressRefusalMessage } from "./_egress_refusal.ts";
 * const message = egressRefusalMessage({
 *   url: "https://[::1]:8443/", host: "::1", port: 8443,
 *   decision: { allowed: false, reason: "loopback address" },
 * });
 * if (!message.startsWith("The egress proxy refused [::1]:8443: loopback address.")) throw new Error(message);
 * ```
 */
export function egressRefusalMessage(detail: EgressRefusalDetail): string {
  const where = detail.host.includes(":")
    ? `[${detail.host}]:${detail.port}`
    : `${detail.host}:${detail.port}`;
  const { decision } = detail;
  if (decision === undefined) {
    return `The egress proxy refused or could not reach ${where} (${detail.url}). ${EGRESS_POLICY}; an unreachable host is reported the same way.`;
  }
  return decision.allowed
    ? `The egress proxy could not reach ${where} (${detail.url}): ${decision.reason}.`
    : `The egress proxy refused ${where}: ${decision.reason}. ${EGRESS_POLICY}.`;
}

/**
 * Add the proxy's decision to a refused call's result: the last decision reported for the same
 * host and port (compared as fields) that refused it or failed to connect.
 *
 * @param result the call's result
 * @param decisions the egress decisions reported while the call ran, in order
 * @returns the result, with `error.egress.decision` and a message made from the fields when a
 *   decision matched; otherwise `result` unchanged
 *
 * @example
 * ```ts
 * import { withEgressDecision } from "./_egress_refusal.ts";
 * const egress = { url: "http://127.0.0.1/", host: "127.0.0.1", port: 80 };
 * const result = withEgressDecision(
 *   { ok: false, error: { kind: "denied", message: "refused", egress } },
 *   [{ host: "127.0.0.1", port: 80, allowed: false, reason: "loopback address" }],
 * );
 * if (result.ok || !result.error.message.includes("127.0.0.1:80: loopback address")) throw new Error();
 * ```
 */
export function withEgressDecision(
  result: ToolResult,
  decisions: readonly EgressDecision[],
): ToolResult {
  if (result.ok || result.error.egress === undefined) return result;
  const { host, port } = result.error.egress;
  const match = decisions.findLast((d) =>
    d.host === host && d.port === port && d.reason !== undefined
  );
  if (match === undefined) return result;
  const egress = {
    ...result.error.egress,
    decision: { allowed: match.allowed, reason: match.reason! },
  };
  return {
    ...result,
    error: { ...result.error, message: egressRefusalMessage(egress), egress },
  };
}
