/**
 * The REST ids of queued runs' approvals: `apr-` and 16 hex digits of a SHA-256 of the run and
 * the approval, so every `serve` of the queue names an approval the same way.
 *
 * @module
 */

/**
 * The REST id of the approval `approvalId` a run paused at.
 *
 * @example
 * ```ts
 * import { approvalKey } from "./queue_approvals.ts";
 * const id = await approvalKey("q-1", "call-7");
 * if (!/^apr-[0-9a-f]{16}$/.test(id) || id !== await approvalKey("q-1", "call-7")) throw new Error(id);
 * ```
 */
export async function approvalKey(runId: string, approvalId: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${runId}\n${approvalId}`),
  );
  const hex = [...new Uint8Array(digest).subarray(0, 8)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return `apr-${hex}`;
}
