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

Deno.test("two writers take turns on the workspace, and the second says it waited", async () => {
  const script = subagentScript(
    (results) =>
      results.length === 0
        ? {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: {
              tasks: [
                { goal: "first", trust_level: "standard", workspace_access: "write" },
                { goal: "second", trust_level: "standard", workspace_access: "write" },
              ],
            },
          }],
        }
        : { text: "done" },
    {
      first: (r) =>
        r.length === 0
          ? {
            toolCalls: [{
              id: "w1",
              name: "write_file",
              arguments: { path: "log.txt", content: "first\n" },
            }],
          }
          : { text: "first done" },
      second: (r) =>
        r.length === 0
          ? { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "log.txt" } }] }
          : { text: `second saw ${r[0].includes("first") ? "first" : "nothing"}` },
    },
  );
  await using fx = await runtimeFixture({ scripts: [script] });
  const workspace = await fx.workspace("ws");
  await using host = await fx.runtime.openSession({ task: "delegate" }, {
    workspace,
    tools: [delegateTasks()],
  });
  const run = await host.startRun();
  const events: RuntimeEvent[] = [];
  for await (const event of run.events) events.push(event);
  assert.equal((await run.result).type, "completed");
  const { results } = parseResults(host.messages.find((m) => m.role === "tool")!.content as string);
  // The second started only after the first was done with the workspace.
  assert.equal(results[1].summary, "second saw first");
  assert.match(
    String((results[1].notes as string[])[0]),
    /^waited \d+ ms for another sub-agent writing the workspace$/,
  );
  const order = events.filter((e) => e.type.startsWith("subagent_")).map((e) =>
    `${e.type}:${(e.data as { task_index: number }).task_index}`
  );
  // The second waited while the first wrote, and started once the first was done.
  const at = (name: string) => order.indexOf(name);
  assert.ok(at("subagent_waiting:1") >= 0 && at("subagent_waiting:1") < at("subagent_completed:0"));
  assert.ok(at("subagent_completed:0") < at("subagent_started:1"), order.join(" "));
});

Deno.test("a long result comes back as an artifact that artifact_read pages by id", async () => {
  const long = `${"0123456789".repeat(500)}END`;
  let read = "";
  const script = subagentScript(
    (results) => {
      if (results.length === 0) {
        return {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: { tasks: [{ goal: "long" }] },
          }],
        };
      }
      if (results.length === 1) {
        const { results: tasks } = parseResults(results[0]);
        return {
          toolCalls: [
            {
              id: "a1",
              name: "artifact_read",
              arguments: { id: tasks[0].artifact_id, offset: 4990 },
            },
            { id: "a2", name: "artifact_read", arguments: { id: "../../etc/passwd" } },
            { id: "a3", name: "artifact_read", arguments: { id: host!.sessionId } },
          ],
        };
      }
      read = results.slice(1).join("\n---\n");
      return { text: "read it" };
    },
    { long: () => ({ text: long }) },
  );
  await using fx = await runtimeFixture({ scripts: [script] });
  const workspace = await fx.workspace("ws");
  // deno-lint-ignore prefer-const
  let host: Awaited<ReturnType<typeof fx.runtime.openSession>> | undefined;
  host = await fx.runtime.openSession({ task: "delegate" }, {
    workspace,
    tools: [delegateTasks()],
  });
  try {
    assert.equal((await (await host.startRun()).result).type, "completed");
    const { results } = parseResults(
      host.messages.find((m) => m.role === "tool")!.content as string,
    );
    assert.equal(results[0].artifact_id, results[0].session_id);
    assert.match(
      String(results[0].summary),
      /\[5003 characters: read all of it with artifact_read\]$/,
    );
    const [page, traversal, parent] = read.split("\n---\n");
    assert.match(page, /0123456789END/);
    assert.match(traversal, /No artifact/);
    assert.match(parent, /No artifact/);
  } finally {
    await host.close();
  }
});

Deno.test("the parent session's spent budget stops its sub-agents' turns", async () => {
  const script = subagentScript(
    (results) =>
      results.length === 0
        ? {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: { tasks: [{ goal: "spend" }] },
          }],
          usage: { prompt_tokens: 50_000, completion_tokens: 1 },
        }
        : { text: "done" },
    {
      spend: (r) => ({
        toolCalls: [{ id: `g${r.length}`, name: "glob", arguments: { pattern: `*${r.length}` } }],
        usage: { prompt_tokens: 20_000, completion_tokens: 1 },
      }),
    },
  );
  await using fx = await runtimeFixture({ scripts: [script] });
  const workspace = await fx.workspace("ws");
  await using host = await fx.runtime.openSession({ task: "delegate" }, {
    workspace,
    tools: [delegateTasks()],
  });
  const outcome = await (await host.startRun({ budgets: { maxInputTokens: 100_000 } })).result;
  // 50k (the parent) + 3 × 20k (the sub-agent) pass 100k: its next turn is refused.
  assert.equal(outcome.type, "budget_exceeded", JSON.stringify(outcome));
  const tool = host.messages.find((m) => m.role === "tool");
  assert.ok(tool, JSON.stringify(host.messages.slice(2)));
  const { results } = parseResults(tool.content as string);
  assert.equal(results[0].status, "budget_exceeded", JSON.stringify(results[0]));
  assert.equal((results[0].usage as { input_tokens: number }).input_tokens, 60_000);
  assert.equal(outcome.stats.inputTokens, 110_000);
});

Deno.test("cancelling the parent run interrupts its sub-agents", async () => {
  let cancel: () => void = () => {};
  const script = subagentScript(
    (results) =>
      results.length === 0
        ? {
          toolCalls: [{
            id: "d1",
            name: "delegate_tasks",
            arguments: { tasks: [{ goal: "wait" }, { goal: "wait too" }] },
          }],
        }
        : { text: "done" },
    {
      wait: () => {
        cancel();
        return { fault: { type: "hang" } };
      },
      "wait too": () => ({ fault: { type: "hang" } }),
    },
  );
  await using fx = await runtimeFixture({ scripts: [script] });
  const workspace = await fx.workspace("ws");
  await using host = await fx.runtime.openSession({ task: "delegate" }, {
    workspace,
    tools: [delegateTasks()],
  });
  const run = await host.startRun();
  cancel = () => run.cancel("SIGINT");
  const outcome = await run.result;
  assert.equal(outcome.type, "interrupted");
  const tool = host.messages.find((m) => m.role === "tool")!.content as string;
  const { results } = parseResults(tool);
  assert.deepEqual(results.map((r) => r.status), ["interrupted", "interrupted"]);
});
