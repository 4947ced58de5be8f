// A workspace's own MCP servers (odek.jsonc `mcpServers`) end to end: inert until the operator
// approves them, started once approved (and on later hosts without asking), asked about again
// after the entry changes. The server is the fixture stdio server, in its sandbox.
import assert from "node:assert/strict";
import { join } from "node:path";
import type {
  McpServerAnswer,
  McpServerApprovalRequest,
} from "../../src/config/approve_project_mcp_servers.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { hostile, mcpFixture } from "./_mcp_fixture.ts";

sandboxTest(
  "project MCP servers: not started until approved, started once approved, asked again after the entry changes",
  async (t) => {
    const echo = [{ toolCalls: [{ id: "c1", name: "proj__echo", arguments: { text: "hi" } }] }, {
      text: "ok",
    }];
    await using m = await mcpFixture({
      servers: () => ({}),
      scripts: [[{ text: "ok" }], echo, echo, [{ text: "ok" }]],
    });
    const file = join(m.workspace, "odek.jsonc");
    const entry = (extra: string[] = []) => {
      const { trusted: _t, ...server } = hostile(m.marker, m.token, [
        "--tools",
        "echo",
        ...extra,
      ]) as unknown as Record<string, unknown>;
      return server;
    };
    const write = (server: Record<string, unknown>) =>
      Deno.writeTextFile(file, JSON.stringify({ mcpServers: { proj: server } }, null, 2));
    const asked: McpServerApprovalRequest[] = [];
    const answer = (reply: McpServerAnswer) => (request: McpServerApprovalRequest) => {
      asked.push(request);
      return Promise.resolve(reply);
    };
    const started = async () => (await m.marks()).filter((l) => l.startsWith("initialize"));
    const open = (task: string, ask?: (r: McpServerApprovalRequest) => Promise<McpServerAnswer>) =>
      m.f.runtime.openSession({ task }, {
        workspace: m.workspace,
        approver: {
          decide: (request) =>
            Promise.resolve(
              request.calls.map((c) => ({ callId: c.callId, approved: true, scope: "once" })),
            ),
        },
        ...(ask ? { askProjectMcpServer: ask } : {}),
      });
    await write(entry());

    await t.step(
      "with nobody to ask it stays inert, with a warning naming it and the file",
      async () => {
        await using host = await open("nobody asks");
        assert.equal(asked.length, 0);
        assert.ok(
          host.warnings.some((w) =>
            w.includes(file) && w.includes('MCP server "proj" not started')
          ),
          host.warnings.join("\n"),
        );
        assert.deepEqual(await started(), []);
      },
    );

    await t.step("approved (always), it starts and its tool runs", async () => {
      await using host = await open("approve", answer("always"));
      assert.equal(asked.length, 1);
      assert.match(asked[0].text, /"node"/);
      assert.match(asked[0].text, /--tools/);
      assert.equal((await started()).length, 1);
      await (await host.startRun()).result;
      assert.match((await m.results(host))[0], /hi/);
    });

    await t.step("a later host starts it without asking (the stored approval)", async () => {
      await using host = await open("again", answer("deny"));
      assert.equal(asked.length, 1, "not asked again");
      await (await host.startRun()).result;
      assert.match((await m.results(host))[0], /hi/);
      assert.equal((await started()).length, 2);
    });

    await t.step("a changed entry is asked about again; denied, it does not start", async () => {
      await write(entry(["--extra-flag"]));
      await using host = await open("changed", answer("deny"));
      assert.equal(asked.length, 2, "asked again");
      assert.match(asked[1].text, /--extra-flag/);
      assert.ok(host.warnings.some((w) => w.includes("did not approve")), host.warnings.join("\n"));
      assert.equal((await started()).length, 2, "not started");
    });
  },
);

Deno.test("project MCP servers: only approved instances reach the client, and their trust is dropped", async () => {
  const { projectServerConfigs } = await import("../../src/mcp/_project_servers.ts");
  const { approveProjectMcpServers } = await import(
    "../../src/config/approve_project_mcp_servers.ts"
  );
  const { McpApprovalStore } = await import("../../src/config/mcp_approval_store.ts");
  const home = await Deno.makeTempDir();
  try {
    const decision = await approveProjectMcpServers({
      project: "/w",
      file: "/w/odek.jsonc",
      servers: { ok: { command: "node", args: ["s.js"], trusted: true }, mine: { command: "x" } },
      store: McpApprovalStore.inHome(home),
      ask: () => Promise.resolve("once"),
    });
    const warnings: string[] = [];
    const forged = { name: "forged", entry: { command: "node" }, sha256: "0", how: "stored" };
    const configs = projectServerConfigs(
      [...decision.approved, forged],
      { mine: { command: "node" } },
      (w) => warnings.push(w),
    );
    assert.deepEqual(configs, [["ok", { command: "node", args: ["s.js"] }]]);
    assert.equal(warnings.length, 3, warnings.join("\n"));
    assert.match(warnings.join("\n"), /"trusted"\/"trustedTools" are ignored/);
    assert.match(warnings.join("\n"), /"mine" is not started: your own configuration/);
    assert.match(warnings.join("\n"), /not approved by approveProjectMcpServers/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
