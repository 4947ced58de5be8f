/**
 * Scripts for sub-agent tests: one model answers the parent and every sub-agent, telling them
 * apart by the request (a sub-agent's system prompt and the goal in its user message).
 *
 * @module
 */
import type { ScriptedTurn } from "../../../src/testing/fake_openai_server.ts";

/** A request as the scripts read it (the fake server's body or the scripted model's request). */
export interface ScriptRequest {
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
}

/** Whether the request is a sub-agent's. */
export function isSubagent(request: ScriptRequest): boolean {
  return (request.messages[0]?.content ?? "").startsWith("You are a sub-agent of odek");
}

/** The goal a sub-agent's request carries (its user message's second line). */
export function goalOf(request: ScriptRequest): string {
  const user = request.messages.find((m) => m.role === "user")?.content ?? "";
  return user.split("\n")[1] ?? "";
}

/** Tool results the request carries, in order. */
export function toolResults(request: ScriptRequest): string[] {
  return request.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
}

/**
 * A script: `parent` answers the parent's requests (by how many tool results it has seen);
 * `children[goal]` answers each sub-agent's (by the same count).
 */
export function subagentScript(
  parent: (results: string[]) => ScriptedTurn,
  children: Record<string, (results: string[]) => ScriptedTurn>,
): (request: ScriptRequest) => ScriptedTurn {
  return (request) => {
    if (!isSubagent(request)) return parent(toolResults(request));
    const goal = goalOf(request);
    const child = children[goal];
    if (!child) return { text: `no script for the goal ${goal}` };
    return child(toolResults(request));
  };
}
