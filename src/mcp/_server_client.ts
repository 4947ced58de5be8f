/**
 * The SDK client of one MCP server (private to `mcp/`): odek's client info, the elicitation
 * capability (forms with defaults applied, and URLs), version negotiation across the 2025 and
 * 2026 revisions, and the operator asked through the clarifier.
 *
 * @module
 */
import { Client } from "@modelcontextprotocol/client";
import type { Clarifier } from "../approval/clarifier.ts";
import type { ElicitationAnswer } from "../approval/elicitation.ts";
import { toElicitationRequest, toElicitResult } from "./elicitation_request.ts";

/**
 * A client that probes with `server/discover` (2026-07-28) and falls back to `initialize`
 * (2025-11-25), and answers `elicitation/create` (and the input-required rounds of 2026, which
 * the SDK routes to the same handler) with `elicit`.
 */
export function createServerClient(options: {
  version: string;
  probeMs: number;
  elicit: (params: Record<string, unknown>) => Promise<ElicitationAnswer>;
}): Client {
  const client = new Client({ name: "odek", version: options.version }, {
    capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } },
    versionNegotiation: { mode: "auto", probe: { timeoutMs: options.probeMs } },
  });
  client.setRequestHandler("elicitation/create", async (request) => {
    const answer = await options.elicit(request.params as Record<string, unknown>);
    return toElicitResult(answer) as never;
  });
  return client;
}

/**
 * Ask the operator an elicitation; nobody able to answer declines it with the reason.
 *
 * @returns the answer, and a note for the call's result (what was asked and what came of it)
 */
export async function askOperator(
  params: Record<string, unknown>,
  server: string,
  clarifier: Clarifier,
): Promise<{ answer: ElicitationAnswer; note: string }> {
  const source = `MCP server "${server}"`;
  let answer: ElicitationAnswer;
  try {
    const request = toElicitationRequest(params, source);
    answer = clarifier.elicit
      ? await clarifier.elicit(request)
      : { action: "decline", reason: "Nobody can answer forms in this run." };
  } catch (error) {
    answer = { action: "decline", reason: `odek could not ask: ${(error as Error).message}` };
  }
  const asked = String(params.message ?? "").slice(0, 200);
  const outcome = answer.action === "accept"
    ? "the operator answered"
    : `${answer.action === "decline" ? "declined" : "cancelled"}: ${answer.reason}`;
  return { answer, note: `[odek: ${source} asked the operator "${asked}"; ${outcome}]` };
}
