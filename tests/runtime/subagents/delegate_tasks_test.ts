/**
 * `delegate_tasks` on the runtime (issue 21): real sub-agent processes (`odek subagent`, no
 * permissions), the parent's scripted model answering both the parent and its sub-agents.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { delegateTasks } from "../../../src/runtime/subagents/delegate_tasks.ts";
import { listSubagents } from "../../../src/runtime/subagents/subagent_sessions.ts";
import { runtimeFixture } from "../_runtime_fixture.ts";
import { subagentScript } from "./_subagent_script.ts";
import type { RuntimeEvent } from "../../../src/runtime/event_subscription.ts";

type Results = { results: Record<string, unknown>[] };

function parseResults(content: string): Results {
  const start = content.indexOf("{");
  const end = content.lastIndexOf("}");
  return JSON.parse(content.slice(start, end + 1));
}

Deno.test("delegate_tasks runs sub-agents, relays their turns and tools, and sums their usage", async () => {
  const script = subagentScript(
    (results) =>
      results.length === 0
        ? {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: {
              tasks: [
                { goal: "read a", trust_level: "trusted" },
                { goal: "write b", trust_level: "standard", workspace_access: "write" },
              ],
            },
          }],
          usage: { prompt_tokens: 100, completion_tokens: 10 },
        }
        : { text: "all done", usage: { prompt_tokens: 200, completion_tokens: 20 } },
    {
      "read a": (results) =>
        results.length === 0
          ? {
            toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "a.txt" } }],
            usage: { prompt_tokens: 10, completion_tokens: 1 },
          }
          : {
            text: `a says ${results[0].includes("alpha") ? "alpha" : "?"}`,
            usage: { prompt_tokens: 20, completion_tokens: 2 },
          },
      "write b": (results) =>
        results.length === 0
          ? {
            toolCalls: [{
              id: "w1",
              name: "write_file",
              arguments: { path: "b.txt", content: "beta\n" },
            }],
            usage: { prompt_tokens: 30, completion_tokens: 3 },
          }
          : { text: "wrote b", usage: { prompt_tokens: 40, completion_tokens: 4 } },
    },
  );
  await using fx = await runtimeFixture({ scripts: [script] });
  const workspace = await fx.workspace("ws");
  await Deno.writeTextFile(join(workspace, "a.txt"), "alpha\n");
  await using host = await fx.runtime.openSession({ task: "delegate" }, {
    workspace,
    tools: [delegateTasks()],
  });
  const run = await host.startRun();
  const events: RuntimeEvent[] = [];
  for await (const event of run.events) events.push(event);
  const outcome = await run.result;
  assert.equal(outcome.type, "completed", JSON.stringify(outcome));
  const tool = host.messages.find((m) => m.role === "tool");
  assert.ok(tool && tool.role === "tool");
  const { results } = parseResults(tool.content);
  assert.equal(results.length, 2);
  assert.equal(results[0].status, "completed", JSON.stringify(results[0]));
  assert.equal(results[0].summary, "a says alpha");
  // Asked for trusted under a standard parent: the parent's level, said in an event and the result.
  assert.equal(results[0].trust_level, "standard");
  const lowered = events.filter((e) => e.type === "subagent_trust_lowered");
  assert.equal(lowered.length, 1);
  assert.deepEqual(
    lowered[0].data as { requested: string; granted: string },
    { call_id: "d1", task_index: 0, requested: "trusted", granted: "standard" },
  );
  assert.equal(results[1].status, "completed", JSON.stringify(results[1]));
  assert.deepEqual(results[1].files_changed, ["b.txt"]);
  assert.equal(await Deno.readTextFile(join(workspace, "b.txt")), "beta\n");
  // The parent's usage counts its sub-agents' turns.
  assert.equal(outcome.stats.inputTokens, 100 + 200 + 10 + 20 + 30 + 40);
  assert.equal(outcome.stats.outputTokens, 10 + 20 + 1 + 2 + 3 + 4);
  assert.deepEqual(results[1].usage, {
    input_tokens: 70,
    output_tokens: 7,
    iterations: 2,
    tool_calls: 1,
  });
  // The parent wrote each sub-agent's journal; they are found from the parent's session.
  const children = await listSubagents(fx.runtime.sessions, host.sessionId);
  assert.equal(children.length, 2);
  assert.ok(children.every((c) => c.state === "finished"));
  assert.deepEqual(children.map((c) => c.partial).sort(), ["a says alpha", "wrote b"]);
});

Deno.test("a read-only sub-agent is not offered writing tools and its writes are refused", async () => {
  const script = subagentScript(
    (results) =>
      results.length === 0
        ? {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: { tasks: [{ goal: "sneak" }] },
          }],
        }
        : { text: "done" },
    {
      sneak: (results) =>
        results.length === 0
          ? {
            toolCalls: [{
              id: "w1",
              name: "write_file",
              arguments: { path: "x.txt", content: "x" },
            }],
          }
          : { text: results[0].slice(0, 300) },
    },
  );
  await using fx = await runtimeFixture({ scripts: [script] });
  const workspace = await fx.workspace("ws");
  await using host = await fx.runtime.openSession({ task: "delegate" }, {
    workspace,
    tools: [delegateTasks()],
  });
  const outcome = await (await host.startRun()).result;
  assert.equal(outcome.type, "completed");
  const tool = host.messages.find((m) => m.role === "tool");
  const { results } = parseResults(tool!.content as string);
  assert.equal(results[0].trust_level, "untrusted");
  assert.equal(results[0].workspace_access, "read");
  assert.match(String(results[0].summary), /unknown_tool|not a tool|Unknown tool/i);
  await assert.rejects(Deno.stat(join(workspace, "x.txt")), Deno.errors.NotFound);
});
