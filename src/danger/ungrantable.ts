/**
 * Calls no approval can make work (issue 13: an approval grants exactly what the prompt showed,
 * or the call is not offered for approval at all): a `system_write` or `destructive` target in
 * `/proc`, `/sys` or `/dev` (the scope derivation never mounts one writable), a write to a kernel
 * interface (`privileged`, which grants nothing), or `/` itself.
 * Such a call is refused before anyone is asked, saying what would work instead.
 *
 * @module
 */
import type { Verdict } from "./verdict.ts";

const KERNEL = /^\/(proc|sys|dev)(\/|$)/;
const SINKS = /^\/dev\/(null|zero|full|stdout|stderr|stdin|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/;

/**
 * The verdict, refused when one of its granting parts names a target no scope can grant.
 *
 * @param verdict the classifier's verdict
 * @returns the same verdict, or a `deny` whose reason says why and what works
 *
 * @example
 * ```ts
 * import { refuseUngrantable } from "./ungrantable.ts";
 * const v = refuseUngrantable({ decision: "ask", reason: "x", parts: [
 *   { riskClass: "system_write", subject: "cat /proc/1/environ", targets: ["/proc/1/environ"] },
 * ] });
 * if (v.decision !== "deny" || !v.reason.includes("--add-dir")) throw new Error(v.reason);
 * ```
 */
export function refuseUngrantable(verdict: Verdict): Verdict {
  if (verdict.decision === "deny") return verdict;
  for (const part of verdict.parts) {
    const granting = part.riskClass === "system_write" || part.riskClass === "destructive";
    // A write to a kernel interface is `privileged`: approving it grants nothing either.
    const kernel = part.riskClass === "privileged" && /kernel interface/.test(part.detail ?? "");
    if (!granting && !kernel) continue;
    const target = part.targets.find((t) => t === "/" || (KERNEL.test(t) && !SINKS.test(t)));
    if (target === undefined) continue;
    const what = target === "/"
      ? "odek never grants the whole file system"
      : "odek never makes /proc, /sys or /dev writable (or readable as a secret) in a sandbox";
    return {
      ...verdict,
      decision: "deny",
      reason:
        `${part.subject}: ${part.riskClass} on ${target}, which no approval can grant: ${what}. ` +
        `Work inside the workspace, or ask the operator to add a directory with --add-dir DIR`,
    };
  }
  return verdict;
}
