/**
 * Issue 21, containment: three sub-agents run at once in real bwrap sandboxes of their parent.
 * One writes outside its scope with its classification forced to allow (the classifier fooled):
 * the sandbox refuses it and the canary stays absent. One asks for approval: the parent's
 * approver gets the call with the sub-agent named. The third reads.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ApprovalRequest, Approver } from "../../../src/approval/approver.ts";
import type { Verdict } from "../../../src/danger/verdict.ts";
import { delegateTasks } from "../../../src/runtime/subagents/delegate_tasks.ts";
import { sandboxTest } from "../../_helpers/sandbox.ts";
import { runtimeFixture } from "../_runtime_fixture.ts";
import { goalOf, isSubagent, subagentScript } from "./_subagent_script.ts";

/** Resolves once `count` callers arrived (or after `ms`, so a broken run fails, not hangs). */
function barrier(count: number, ms: number): { arrive: () => Promise<boolean> } {
  let arrived = 0;
  let open: (all: boolean) => void = () => {};
  const all = new Promise<boolean>((resolve) => (open = resolve));
  const timer = setTimeout(() => open(false), ms);
  return {
    arrive() {
      arrived++;
      if (arrived === count) {
        clearTimeout(timer);
        open(true);
      }
      return all;
    },
  };
}

sandboxTest(
  "sub-agents run concurrently; the sandbox refuses a forced write outside scope; approvals reach the parent's approver",
  async () => {
    await using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const together = barrier(3, 30_000);
    const firsts = new Set<string>();
    let overlapped: boolean | undefined;
    const children = subagentScript(
      (results) =>
        results.length === 0
          ? {
            toolCalls: [{
              id: "d1",
              name: "delegate_tasks",
              arguments: {
                tasks: [
                  { goal: "escape", trust_level: "standard", workspace_access: "write" },
                  { goal: "fetch", trust_level: "standard" },
                  { goal: "read", trust_level: "standard" },
                ],
              },
            }],
          }
          : { text: "parent done" },
      {
        escape: (results) =>
          results.length === 0
            ? { toolCalls: [{ id: "s1", name: "shell", arguments: { command: ESCAPE } }] }
            : { text: `escape: ${results[0].slice(0, 400)}` },
        fetch: (results) =>
          results.length === 0
            ? {
              toolCalls: [{
                id: "h1",
                name: "http_request",
                arguments: { url: `http://127.0.0.1:${port}/` },
              }],
            }
            : { text: `fetch: ${results[0].slice(0, 400)}` },
        read: (results) =>
          results.length === 0
            ? { toolCalls: [{ id: "r1", name: "read_file", arguments: { path: "a.txt" } }] }
            : { text: `read: ${results[0].slice(0, 200)}` },
      },
    );
    let ESCAPE = "";
    await using fx = await runtimeFixture({
      sandbox: "bwrap",
      scripts: [async (request) => {
        // The first turn of each sub-agent waits for the other two: they run at once.
        if (isSubagent(request) && !firsts.has(goalOf(request))) {
          firsts.add(goalOf(request));
          const all = await together.arrive();
          overlapped = overlapped === undefined ? all : overlapped && all;
        }
        return children(request);
      }],
    });
    const workspace = await fx.workspace("ws");
    const outside = await fx.workspace("outside");
    const canary = join(outside, "escaped.txt");
    ESCAPE = `echo escaped > ${canary}`;
    await Deno.writeTextFile(join(workspace, "a.txt"), "alpha\n");
    const asked: ApprovalRequest[] = [];
    const approver: Approver = {
      decide(request) {
        asked.push(request);
        return Promise.resolve(
          request.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" as const })),
        );
      },
    };
    const forced: Verdict = {
      decision: "allow",
      reason: "forced by the test",
      parts: [{ riskClass: "local_write", subject: "shell", targets: [] }],
    };
    await using host = await fx.runtime.openSession({ task: "delegate" }, {
      workspace,
      approver,
      tools: [delegateTasks({
        classify: (call) =>
          call.name === "shell" && call.args.command === ESCAPE ? forced : undefined,
      })],
    });
    const outcome = await (await host.startRun()).result;
    assert.equal(outcome.type, "completed", JSON.stringify(outcome));
    assert.equal(overlapped, true, "the three sub-agents' first turns were in flight together");
    const tool = host.messages.find((m) => m.role === "tool")!.content as string;
    const { results } = JSON.parse(tool.slice(tool.indexOf("{"), tool.lastIndexOf("}") + 1));
    assert.deepEqual(results.map((r: { status: string }) => r.status), [
      "completed",
      "completed",
      "completed",
    ]);
    // The forced allow ran in a sandbox where only the workspace is writable: refused by the OS.
    assert.match(results[0].summary, /Read-only file system|Permission denied/, results[0].summary);
    await assert.rejects(Deno.stat(canary), Deno.errors.NotFound);
    // Only the fetch asked; the parent's approver saw it with the sub-agent named.
    assert.equal(asked.length, 1);
    assert.equal(asked[0].calls[0].toolName, "http_request");
    assert.match(asked[0].calls[0].agent ?? "", /^sub-agent 2 of 3 \("fetch"\)$/);
    assert.match(results[1].summary, /^fetch: /);
    assert.match(results[2].summary, /alpha/);
  },
);
