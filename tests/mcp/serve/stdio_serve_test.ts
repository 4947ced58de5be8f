// `odek mcp serve` over stdio, driven by the SDK's own client: tools/list, a direct built-in
// call, a call that would ask (elicited when the client supports it, refused otherwise), and a
// whole run_task with progress notifications, its final answer and the changed files.
import assert from "node:assert/strict";
import { join } from "node:path";
import { sandboxTest } from "../../_helpers/sandbox.ts";
import { serveFixture, stdioClient } from "./_serve_fixture.ts";

sandboxTest(
  "odek mcp serve (stdio): tools/list, direct calls and run_task from the SDK's client",
  async (t) => {
    await using f = await serveFixture([
      {
        toolCalls: [{
          id: "w1",
          name: "write_file",
          arguments: { path: "out.txt", content: "done\n" },
        }],
      },
      { text: "I wrote out.txt." },
    ]);
    await using client = await stdioClient(f);

    await t.step(
      "tools/list: run_task and the built-in tools, never delegate_tasks or core tools",
      async () => {
        const { tools } = await client.listTools();
        const names = tools.map((tool) => tool.name);
        assert.equal(names[0], "run_task");
        for (const name of ["read_file", "write_file", "shell", "http_request"]) {
          assert.ok(names.includes(name), `${name} in ${names.join(", ")}`);
        }
        for (const name of ["delegate_tasks", "plan", "clarify"]) assert.ok(!names.includes(name));
        for (const tool of tools) {
          assert.equal(tool.inputSchema.type, "object");
          assert.ok(tool.description);
        }
      },
    );

    await t.step(
      "run_task: progress notifications, the final answer and the changed files",
      async () => {
        const progress: string[] = [];
        const result = await client.callTool(
          { name: "run_task", arguments: { task: "write out.txt" } },
          { onprogress: (p) => void progress.push(String(p.message)) },
        );
        assert.ok(!result.isError, JSON.stringify(result));
        const text = (result.content as { text: string }[])[0].text;
        assert.match(text, /I wrote out\.txt\./);
        assert.match(text, /Files changed:\nadded out\.txt \(\+1 -0\)/);
        assert.ok(progress.includes("calling write_file"), progress.join(" | "));
        assert.ok(progress.includes("completed"), progress.join(" | "));
        const structured = result.structuredContent as { outcome: string; workspace: string };
        assert.equal(structured.outcome, "completed");
        assert.equal(await Deno.readTextFile(join(structured.workspace, "out.txt")), "done\n");
      },
    );

    await t.step("a direct read_file runs in the dedicated workspace", async () => {
      await Deno.writeTextFile(join(f.dedicated, "note.txt"), "bravo\n");
      const result = await client.callTool({ name: "read_file", arguments: { path: "note.txt" } });
      assert.ok(!result.isError, JSON.stringify(result));
      assert.match((result.content as { text: string }[])[0].text, /bravo/);
    });

    await t.step("a call that would ask is refused with the reason (no elicitation)", async () => {
      const outside = join(f.fx.home, "canary-outside.txt");
      const result = await client.callTool({
        name: "write_file",
        arguments: { path: outside, content: "canary" },
      });
      assert.equal(result.isError, true);
      assert.match(
        (result.content as { text: string }[])[0].text,
        /does not support elicitation/,
      );
      await assert.rejects(() => Deno.stat(outside), Deno.errors.NotFound);
    });

    await t.step("bad arguments and unknown tools are errors, not crashes", async () => {
      const bad = await client.callTool({ name: "read_file", arguments: { nope: 1 } });
      assert.equal(bad.isError, true);
      await assert.rejects(() => client.callTool({ name: "delegate_tasks", arguments: {} }));
    });
  },
);

sandboxTest(
  "odek mcp serve (stdio): a call that would ask is put to the client through elicitation",
  async (t) => {
    await using f = await serveFixture([]);
    await using client = await stdioClient(f, { elicitation: { form: {} } });
    const asked: string[] = [];
    let approve = false;
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(String(request.params.message));
      return { action: "accept", content: { approve } };
    });
    const outside = join(f.fx.home, "canary-elicited.txt");
    const write = () =>
      client.callTool({ name: "write_file", arguments: { path: outside, content: "canary\n" } });
    await t.step("declined: it does not run", async () => {
      const result = await write();
      assert.equal(result.isError, true);
      assert.equal(asked.length, 1);
      assert.match(asked[0], /odek asks before running write_file/);
      await assert.rejects(() => Deno.stat(outside), Deno.errors.NotFound);
    });
    await t.step("approved: it runs with exactly that scope", async () => {
      approve = true;
      const result = await write();
      assert.ok(!result.isError, JSON.stringify(result));
      assert.equal(asked.length, 2);
      assert.equal(await Deno.readTextFile(outside), "canary\n");
    });
  },
);
