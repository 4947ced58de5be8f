/**
 * The sentences the terminal renderer shows for some events (private to `cli/`): the start
 * banner, a resumed session's spend, retry reasons, budget amounts and durations.
 *
 * @module
 */
import type { RunEventData } from "../loop/run_event.ts";
import { ODEK_VERSION } from "./version.ts";

/** The banner's two lines: model, endpoint, trust, sandbox; workspace, session, instruction files. */
export function bannerLines(
  data: RunEventData["run_started"],
  sessionId: string | undefined,
): [string[], string[]] {
  const endpoint = data.base_url.startsWith("replay:")
    ? `cassette ${data.base_url.slice(7)}`
    : hostOf(data.base_url);
  const first = [
    `odek ${ODEK_VERSION}`,
    `${data.model} @ ${endpoint}`,
    `trust ${data.trust ?? "standard"}`,
    `sandbox ${data.sandbox}`,
  ];
  const files = (data.instructions ?? []).map((f) =>
    `${f.source} (${f.lines} line${f.lines === 1 ? "" : "s"})`
  );
  const second = [
    `workspace ${data.workspace}`,
    `session ${sessionId ?? "?"}${data.resumed ? " (resumed)" : ""}`,
    ...files,
    ...(data.checkpoints === false ? ["checkpoints off"] : []),
  ];
  return [first, second];
}

/** What a resumed session spent before this run, and what is left of its budgets. */
export function spendText(
  spend: NonNullable<RunEventData["run_started"]["session_spend"]>,
): string {
  const left = Object.entries(spend.left).map(([name, value]) =>
    `${name === "cost_usd" ? `$${value}` : value} ${name.replace(/_/g, " ").replace(/ usd$/, "")}`
  );
  return `this session has spent ${spend.input_tokens} input and ${spend.output_tokens} output tokens and ${spend.tool_calls} tool call(s)${
    left.length > 0 ? `; left of its budgets: ${left.join(", ")}` : ""
  }`;
}

/** How a `model_retry` reason reads on the terminal. */
export const RETRY_REASONS: Record<string, string> = {
  reset: "connection reset",
  refused: "connection refused",
  dns: "DNS lookup failed",
  connect_timeout: "did not answer in time",
  stream_idle: "stream stalled",
  malformed: "sent malformed data",
  empty_choices: "sent an empty answer",
  cut: "stream cut off",
  stream_error: "reported an error mid-stream",
  network: "network error",
};

/** `3.2 s of 3 s`, `$0.0011 of $0.001`, `6 of 5`. */
export function budgetAmounts(
  data: { limit_name: string; observed: number; limit: number; prompt_tokens?: number },
): string {
  if (data.prompt_tokens !== undefined) {
    const $ = data.limit_name === "cost_usd" ? "$" : "";
    return `the next prompt (~${data.prompt_tokens} tokens) would take the session to ${$}${data.observed} of ${$}${data.limit}; not sent`;
  }
  if (data.limit_name === "runtime") return `${data.observed} s of ${data.limit} s`;
  if (data.limit_name === "cost_usd") return `$${data.observed} of $${data.limit}`;
  return `${data.observed} of ${data.limit}`;
}

/** `42 s`, `3 min 5 s`, `2 h 4 min`. */
export function longDuration(ms: number): string {
  const total = Math.round(ms / 1000);
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min ${total % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The host (and port) of a base URL, or the URL itself when it does not parse. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The line of a sub-agent event (`delegate_tasks`, docs/subagents.md). */
export function subagentText(
  event:
    | { type: "subagent_started"; data: RunEventData["subagent_started"] }
    | { type: "subagent_trust_lowered"; data: RunEventData["subagent_trust_lowered"] }
    | { type: "subagent_waiting"; data: RunEventData["subagent_waiting"] }
    | { type: "subagent_completed"; data: RunEventData["subagent_completed"] },
): string {
  const n = `sub-agent ${event.data.task_index + 1}`;
  switch (event.type) {
    case "subagent_started":
      return `${n} started (${event.data.trust_level}, ${event.data.workspace_access}; session ${event.data.session_id})`;
    case "subagent_trust_lowered":
      return `${n} asked for trust level ${event.data.requested}: it runs with ${event.data.granted}, this session's`;
    case "subagent_waiting":
      return `${n} waits: ${event.data.reason}`;
    case "subagent_completed":
      return `${n} ${event.data.status} (${event.data.input_tokens} in, ${event.data.output_tokens} out tokens)`;
    default: {
      const unreachable: never = event;
      throw new TypeError(`Unknown event: ${JSON.stringify(unreachable)}`);
    }
  }
}
