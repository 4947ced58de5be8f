import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { OdekError } from "../../src/_util/odek_error.ts";
import { defineTool } from "../../src/runtime/define_tool.ts";
import type { ToolProviderSource } from "../../src/runtime/tool_provider_source.ts";
import type { ScriptedTurn } from "../../src/testing/fake_openai_server.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { REPO_ROOT, type RuntimeFixture, runtimeFixture } from "./_runtime_fixture.ts";

const FIXTURES = join(REPO_ROOT, "tests/runtime/_library_tools");
const markerArgs = z.strictObject({ name: z.string().regex(/^[a-z_.]+$/), line: z.string() });

/** Copy the fixture handlers to a directory of the fixture's, outside the checkout. */
async function toolsDir(f: RuntimeFixture): Promise<string> {
  const dir = join(f.root, "my_tools");
  await Deno.mkdir(dir, { recursive: true });
  for (
    const name of ["write_marker.ts", "probe_scope.ts", "probe_label.ts", "wait_for_cancel.ts"]
  ) {
    await Deno.copyFile(join(FIXTURES, name), join(dir, name));
  }
  return dir;
}

/** Run one session (its model scripted by the fixture); return each call's result, in call order. */
async function runCalls(
  f: RuntimeFixture,
  workspace: string,
  tools: ToolProviderSource[],
  trust?: "untrusted" | "standard" | "trusted",
): Promise<string[]> {
  await using host = await f.runtime.openSession({ task: "use my tools" }, {
    workspace,
    tools,
    ...(trust ? { trust } : {}),
  });
  const outcome = await (await host.startRun()).result;
  assert.equal(outcome.type, "completed", JSON.stringify(outcome));
  // The journal holds results as they complete: order them by call (c0, c1, …).
  return host.messages.filter((m) => m.role === "tool")
    .sort((a, b) => String(a.tool_call_id).localeCompare(String(b.tool_call_id)))
    .map((m) => String(m.content));
}

function calls(...turns: { name: string; arguments: Record<string, unknown> }[]): ScriptedTurn[] {
  return [{ toolCalls: turns.map((t, i) => ({ id: `c${i}`, ...t })) }, { text: "done" }];
}

sandboxTest(
  "defineTool() runs a tool in its own sandboxed child: workspace read cannot write, write can",
  async () => {
    await using f = await runtimeFixture({
      sandbox: "bwrap",
      scripts: [calls(
        { name: "note_read", arguments: { name: "marker.txt", line: "from the read tool" } },
        { name: "note_write", arguments: { name: "marker.txt", line: "from the write tool" } },
      )],
    });
    const dir = await toolsDir(f);
    const workspace = await f.workspace("ws");
    const module = new URL(`file://${dir}/write_marker.ts`);
    const describe = "Append a line to a marker file in the workspace.";
    const results = await runCalls(f, workspace, [
      defineTool({
        name: "note_read",
        description: describe,
        args: markerArgs,
        access: { workspace: "read" },
        module,
      }),
      defineTool({
        name: "note_write",
        description: describe,
        args: markerArgs,
        access: { workspace: "write" },
        module,
      }),
    ]);
    // The read tool's write was refused inside its child (Deno's NotCapable), as data.
    assert.match(results[0], /^error \(denied\): note_read was denied by the sandbox/, results[0]);
    assert.match(results[1], /wrote marker\.txt: from the write tool/, results[1]);
    assert.equal(await Deno.readTextFile(join(workspace, "marker.txt")), "from the write tool\n");
  },
);

sandboxTest(
  "defineTool(): the child reads the workspace and its own directory only, and has no way out without network",
  async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const seen: string[] = [];
    const serving = (async () => {
      for await (const conn of listener) {
        seen.push("connection");
        conn.close();
      }
    })();
    try {
      await using f = await runtimeFixture({
        sandbox: "bwrap",
        scripts: [
          calls({
            name: "probe",
            arguments: { outside: "../outside.txt", port: listener.addr.port },
          }),
          calls({
            name: "probe_net",
            arguments: { outside: "../outside.txt", port: listener.addr.port },
          }),
        ],
        config: { trustLevel: "trusted", trustedClasses: ["read", "network"] },
      });
      const dir = await toolsDir(f);
      const workspace = await f.workspace("ws");
      await Deno.writeTextFile(join(workspace, "seen.txt"), "a file the tool may read");
      await Deno.writeTextFile(join(f.root, "outside.txt"), "a file the tool may not read");
      const args = z.strictObject({ outside: z.string(), port: z.int() });
      const module = join(dir, "probe_scope.ts");
      const probe = (name: string, network: boolean) =>
        defineTool({
          name,
          description: "Report what the sandbox allows.",
          args,
          access: network ? { workspace: "read", network: true } : { workspace: "read" },
          module,
        });
      const [offline] = await runCalls(f, workspace, [probe("probe", false)]);
      const report = JSON.parse(offline.slice(offline.indexOf("{"), offline.lastIndexOf("}") + 1));
      assert.deepEqual(report, {
        label: "probe",
        readWorkspace: "ok",
        readOutside: "NotCapable",
        globalFetch: "NotCapable",
        contextFetch: "ToolFailure",
        env: "NotCapable",
      });
      // With network approved, context.fetch goes through the egress proxy, which refuses loopback.
      const [online] = await runCalls(f, workspace, [probe("probe_net", true)]);
      const netReport = JSON.parse(online.slice(online.indexOf("{"), online.lastIndexOf("}") + 1));
      assert.equal(netReport.contextFetch, "EgressRefusal", online);
      assert.notEqual(netReport.globalFetch, "ok", online);
      assert.deepEqual(seen, [], "nothing reached the loopback listener");
    } finally {
      listener.close();
      await serving.catch(() => {});
    }
  },
);

sandboxTest(
  "defineTool(): an untrusted run may not call a write tool; a tool in a protected root is refused",
  async () => {
    await using f = await runtimeFixture({
      sandbox: "bwrap",
      scripts: [
        calls({ name: "note_write", arguments: { name: "marker.txt", line: "x" } }),
        calls({ name: "note_inside", arguments: { name: "marker.txt", line: "x" } }),
      ],
    });
    const dir = await toolsDir(f);
    const workspace = await f.workspace("ws");
    const [untrusted] = await runCalls(f, workspace, [defineTool({
      name: "note_write",
      description: "Append a line.",
      args: markerArgs,
      access: { workspace: "write" },
      module: join(dir, "write_marker.ts"),
    })], "untrusted");
    assert.match(
      untrusted,
      /note_write: local_write .*not allowed at trust level untrusted/,
      untrusted,
    );
    // The checkout is a protected root: a module inside it would show it to the sandbox.
    const [inside] = await runCalls(f, workspace, [defineTool({
      name: "note_inside",
      description: "Append a line.",
      args: markerArgs,
      access: { workspace: "write" },
      module: join(FIXTURES, "write_marker.ts"),
    })]);
    assert.match(inside, /overlaps .*: move the tool's module into a directory of its own/, inside);
    await assert.rejects(Deno.stat(join(workspace, "marker.txt")), Deno.errors.NotFound);
  },
);

sandboxTest(
  "defineTool(): a call past its timeout is cancelled in its child, which stops; a network tool asks",
  async () => {
    await using f = await runtimeFixture({
      sandbox: "bwrap",
      scripts: [
        calls({ name: "slow", arguments: { name: "marker.txt" } }),
        calls({ name: "fetcher", arguments: { outside: "x", port: 9 } }),
      ],
    });
    const dir = await toolsDir(f);
    const workspace = await f.workspace("ws");
    {
      await using host = await f.runtime.openSession({ task: "be slow" }, {
        workspace,
        tools: [defineTool({
          name: "slow",
          description: "Work until cancelled.",
          args: z.strictObject({ name: z.literal("marker.txt") }),
          access: { workspace: "write" },
          module: join(dir, "wait_for_cancel.ts"),
          // Long enough for the child to start and take the call even on a loaded machine: the
          // handler must be running when the cancel arrives.
          timeoutMs: 3000,
        })],
      });
      assert.equal((await (await host.startRun()).result).type, "completed");
      const slow = String(host.messages.find((m) => m.role === "tool")?.content);
      assert.match(
        slow,
        /^error \(timeout\):[\s\S]*slow did not answer within 3000 ms; it was cancelled/,
      );
      // The cancel reached the child while its host is open: the handler saw its signal abort.
      const marker = join(workspace, "marker.txt");
      const deadline = Date.now() + 10_000;
      while (!(await Deno.stat(marker).then(() => true, () => false))) {
        assert.ok(Date.now() < deadline, "the handler never saw the cancel");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(await Deno.readTextFile(marker), "stopped\n");
    }
    // At the standard trust level network asks; the runtime's default approver denies every ask.
    const [fetcher] = await runCalls(f, workspace, [defineTool({
      name: "fetcher",
      description: "Fetch.",
      args: z.strictObject({ outside: z.string(), port: z.int() }),
      access: { workspace: "read", network: true },
      module: join(dir, "probe_scope.ts"),
    })]);
    assert.match(fetcher, /denied/, fetcher);
    assert.doesNotMatch(fetcher, /"label"/, "the tool never ran");
  },
);

Deno.test("defineTool() without bwrap (sandbox none): Deno's flags alone keep a read tool from writing", async () => {
  await using f = await runtimeFixture({
    sandbox: "none",
    scripts: [calls(
      { name: "note_read", arguments: { name: "marker.txt", line: "from the read tool" } },
      { name: "note_write", arguments: { name: "marker.txt", line: "from the write tool" } },
    )],
  });
  const dir = await toolsDir(f);
  const workspace = await f.workspace("ws");
  const tool = (name: string, workspaceAccess: "read" | "write") =>
    defineTool({
      name,
      description: "Append a line to a marker file in the workspace.",
      args: markerArgs,
      access: { workspace: workspaceAccess },
      module: join(dir, "write_marker.ts"),
    });
  const results = await runCalls(f, workspace, [
    tool("note_read", "read"),
    tool("note_write", "write"),
  ]);
  assert.match(results[0], /^error \(denied\): note_read was denied by the sandbox/, results[0]);
  assert.match(results[1], /wrote marker\.txt: from the write tool/, results[1]);
});

Deno.test("defineTool() checks its options at once and its module when a host opens", async (t) => {
  const good = {
    name: "ok_tool",
    description: "A tool.",
    args: z.strictObject({}),
    access: { workspace: "read" as const },
    module: "/nonexistent/odek-test/tool.ts",
  };
  await t.step("bad options are TypeErrors naming the option", () => {
    assert.throws(() => defineTool({ ...good, name: "no spaces" }), /name must be/);
    assert.throws(() => defineTool({ ...good, description: " " }), /description/);
    assert.throws(
      () => defineTool({ ...good, args: {} as never }),
      /args of ok_tool must be a Standard Schema/,
    );
    assert.throws(
      () => defineTool({ ...good, access: { workspace: "all" } as never }),
      /access\.workspace/,
    );
    assert.throws(
      () => defineTool({ ...good, module: "http://127.0.0.1:1/tool.ts" }),
      /module must be a local file/,
    );
    assert.throws(() => defineTool({ ...good, module: "tool.ts" }), /module must be a file: URL/);
    assert.throws(() => defineTool({ ...good, timeoutMs: 0 }), /timeoutMs/);
  });
  await t.step(
    "a module that does not exist fails the host's opening, leaving no session",
    async () => {
      await using f = await runtimeFixture({ scripts: [[{ text: "never" }]] });
      const workspace = await f.workspace("ws");
      await assert.rejects(
        f.runtime.openSession({ task: "t" }, { workspace, tools: [defineTool(good)] }),
        (error) =>
          error instanceof OdekError && error.code === "CONFIG_INVALID" &&
          /\/nonexistent\/odek-test\/tool\.ts/.test(error.message),
      );
      assert.deepEqual(await f.runtime.sessions.list(), []);
    },
  );
});
