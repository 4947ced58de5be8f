import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { odekFixture, toolMessages } from "./_odek.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

sandboxTest(
  "odek run: a background job runs beside the loop and dies with the run; a plan step is done only after its check ran",
  async () => {
    await using fx = await odekFixture();
    await using server = await startFakeOpenAIServer({
      turns: [
        {
          toolCalls: [
            {
              id: "bg",
              name: "bg_start",
              arguments: { command: "echo up; while sleep 0.05; do date +%s%N > beat; done" },
            },
            {
              id: "p1",
              name: "plan",
              arguments: {
                action: "create",
                steps: [{
                  id: "beat",
                  title: "the job beats",
                  check: { tool: "shell", args_include: "test -s beat" },
                }],
              },
            },
          ],
        },
        {
          toolCalls: [{
            id: "u1",
            name: "plan",
            arguments: { action: "update", updates: [{ id: "beat", status: "done" }] },
          }],
        },
        {
          toolCalls: [{
            id: "sh",
            name: "shell",
            arguments: {
              command:
                "for i in $(seq 300); do test -s beat && break; sleep 0.1; done; test -s beat",
            },
          }],
        },
        { toolCalls: [{ id: "out", name: "bg_output", arguments: { id: "bg1" } }] },
        {
          toolCalls: [{
            id: "u2",
            name: "plan",
            arguments: { action: "update", updates: [{ id: "beat", status: "done" }] },
          }],
        },
        { text: "The job beats." },
      ],
    });
    const result = await fx.run(["run", "--base-url", server.url, "start a heartbeat"]);
    assert.equal(result.code, 0, result.stderr);
    const results = toolMessages(server.requests.at(-1)!.body);
    const byId = (id: string) => results.find((m) => m.tool_call_id === id)!.content;
    assert.match(byId("bg"), /^started bg1/);
    assert.match(byId("u1"), /^error \(invalid_arguments\): Step "beat" cannot be done yet/);
    assert.match(byId("out"), /^bg1 · running[\s\S]*stdout:\nup\n/);
    assert.match(
      byId("u2"),
      /its one step is complete[\s\S]*"status":"done"[\s\S]*"satisfiedBy":"sh"/,
    );
    // The plan was in the head of the last request.
    const last = server.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    assert.ok(
      last.messages.some((m) =>
        m.role === "system" && m.content.includes("its one step is complete")
      ),
    );
    // The job died with the run: its heartbeat stopped.
    const beat = join(fx.workspace, "beat");
    const before = await Deno.readTextFile(beat);
    await delay(400);
    assert.equal(await Deno.readTextFile(beat), before);
  },
);
