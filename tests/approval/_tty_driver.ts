// Test driver: runs batches through one TerminalApprover (shared memory) and writes the answers.
// Usage: deno run --allow-read --allow-write _tty_driver.ts <input.json> <output.json>
// input.json: { "batches": ApprovalRequest[], "ttyPath"?: string, "abortAfterMs"?: number }
// output.json: ApprovalAnswer[][] (one array per batch), or { "error": string }.
import { z } from "zod";
import { ApprovalRequestSchema } from "../../src/approval/approver.ts";
import { TerminalApprover } from "../../src/approval/terminal_approver.ts";

const [input, output] = Deno.args;
const InputSchema = z.object({
  batches: z.array(ApprovalRequestSchema),
  ttyPath: z.string().optional(),
  abortAfterMs: z.number().optional(),
});
try {
  const parsed = InputSchema.parse(JSON.parse(await Deno.readTextFile(input)));
  const approver = new TerminalApprover(parsed.ttyPath ? { ttyPath: parsed.ttyPath } : {});
  const signal = parsed.abortAfterMs === undefined
    ? undefined
    : AbortSignal.timeout(parsed.abortAfterMs);
  const results = [];
  for (const batch of parsed.batches) results.push(await approver.decide(batch, signal));
  await Deno.writeTextFile(output, JSON.stringify(results));
} catch (error) {
  await Deno.writeTextFile(output, JSON.stringify({ error: String(error) }));
  Deno.exit(0);
}
