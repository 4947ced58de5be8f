import assert from "node:assert/strict";
import type { Clarifier } from "../../src/approval/clarifier.ts";
import { NonInteractiveApprover } from "../../src/approval/non_interactive_approver.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { hostile, mcpFixture } from "./_mcp_fixture.ts";

sandboxTest(
  "MCP: an untrusted server's call is unknown, asks with the server's scope, and --yes never approves it",
  async (t) => {
    await using m = await mcpFixture({
      servers: (marker, token) => ({
        srv: hostile(marker, token, ["--tools", "echo"], { trusted: false }),
      }),
      scripts: [
        [{ toolCalls: [{ id: "c1", name: "srv__echo", arguments: { text: "hi" } }] }, {
          text: "ok",
        }],
        [{ toolCalls: [{ id: "c2", name: "srv__echo", arguments: { text: "hi" } }] }, {
          text: "ok",
        }],
      ],
    });
    await t.step("it asks, and the prompt names the server and its sandbox", async () => {
      const host = await m.open("echo");
      await (await host.startRun()).result;
      assert.equal(m.asked.length, 1);
      const [part] = m.asked[0].calls[0].verdict.parts;
      assert.equal(part.riskClass, "unknown");
      assert.match(
        part.detail ?? "",
        /MCP server srv tool "echo"; the server's scope: stdio node in a sandbox: workspace read-only, writes .*scratch, no network/,
      );
      assert.match((await m.results(host))[0], /hi/);
      await host.close();
    });
    await t.step("--yes approves every class but unknown: the call is denied", async () => {
      const host = await m.open("echo", { approver: new NonInteractiveApprover({ yes: "all" }) });
      await (await host.startRun()).result;
      assert.match((await m.results(host))[0], /^error \(denied\)/);
      assert.deepEqual((await m.marks()).filter((l) => l.startsWith("call")), ["call echo"]);
      await host.close();
    });
  },
);

sandboxTest(
  "MCP: an elicitation reaches the clarifier (the deadline waits for the operator); nobody to answer declines with the reason",
  async (t) => {
    await using m = await mcpFixture({
      servers: (marker, token) => ({
        bad: hostile(marker, token, ["--tools", "ask,ask_url"], { timeoutSeconds: 1 }),
      }),
      scripts: [
        [{ toolCalls: [{ id: "c1", name: "bad__ask", arguments: {} }] }, { text: "ok" }],
        [{ toolCalls: [{ id: "c2", name: "bad__ask", arguments: {} }] }, { text: "ok" }],
      ],
    });
    await t.step("a slow operator's answer reaches the server", async () => {
      const asked: string[] = [];
      const operator: Clarifier = {
        ask: () => Promise.resolve({ answered: false, reason: "no" }),
        elicit: async (request) => {
          asked.push(request.mode === "form" ? request.fields.map((f) => f.name).join(",") : "");
          // Longer than the server's 1 s deadline: the deadline stands still while asking.
          await new Promise((resolve) => setTimeout(resolve, 1500));
          return { action: "accept", content: { color: "blue", count: 5 } };
        },
      };
      const host = await m.open("ask", { clarifier: operator });
      await (await host.startRun()).result;
      assert.deepEqual(asked, ["color,count,note"]);
      const [result] = await m.results(host);
      assert.match(result, /"action":"accept","content":\{"color":"blue","count":5\}/);
      assert.match(
        result,
        /\[odek: MCP server "bad" asked the operator "Which color\?"; the operator answered\]/,
      );
      await host.close();
    });
    await t.step("without an operator the form is declined and the model is told why", async () => {
      const host = await m.open("ask", {
        clarifier: { ask: () => Promise.resolve({ answered: false, reason: "no" }) },
      });
      await (await host.startRun()).result;
      const [result] = await m.results(host);
      assert.match(result, /"action":"decline"/);
      assert.match(result, /declined: Nobody can answer forms in this run/);
      await host.close();
    });
  },
);

sandboxTest(
  "MCP: a 2025 server that exits on the version probe is restarted without it; a silent one fails clearly; untrusted runs start none",
  async (t) => {
    await using m = await mcpFixture({
      servers: (marker, token) => ({
        legacy: hostile(marker, token, ["--tools", "echo", "--exit-on-probe", "--noise-first"]),
        mute: hostile(marker, token, ["--silent"], { timeoutSeconds: 1 }),
      }),
      scripts: [
        [{ toolCalls: [{ id: "c1", name: "legacy__echo", arguments: { text: "old" } }] }, {
          text: "ok",
        }],
        [{ text: "nothing" }],
      ],
    });
    await t.step("the probe-exiting server answers after a restart", async () => {
      const host = await m.open("echo");
      await (await host.startRun()).result;
      assert.match((await m.results(host))[0], /old/);
      const marks = await m.marks();
      assert.ok(marks.includes("probe") && marks.includes("initialize 2025-11-25"), marks.join());
      assert.ok(
        m.warnings.some((w) => /MCP server mute failed while starting/.test(w)),
        m.warnings.join("\n"),
      );
      const names = m.f.models[0].requests[0].tools.map((s) => s.function.name);
      assert.ok(!names.some((n) => n.startsWith("mute__")));
      await host.close();
    });
    await t.step("an untrusted host starts no server", async () => {
      m.warnings.length = 0;
      const before = (await m.marks()).length;
      const host = await m.open("nothing", { trust: "untrusted" });
      assert.deepEqual(m.warnings, ["MCP servers are not started in an untrusted run"]);
      assert.equal((await m.marks()).length, before);
      await host.close();
    });
  },
);

sandboxTest(
  "MCP: a stdio server has no network unless configured, and then only the egress proxy",
  async () => {
    await using m = await mcpFixture({
      servers: (marker, token) => ({
        off: hostile(marker, token, ["--tools", "env_names"]),
        on: hostile(marker, token, ["--tools", "env_names"], { network: true }),
      }),
      scripts: [[
        {
          toolCalls: [
            { id: "c1", name: "off__env_names", arguments: {} },
            { id: "c2", name: "on__env_names", arguments: {} },
          ],
        },
        { text: "ok" },
      ]],
    });
    const host = await m.open("env");
    await (await host.startRun()).result;
    const results = await m.results(host);
    const of = (name: string) => results.find((r) => r.includes(`source="${name}"`)) ?? "";
    assert.doesNotMatch(of("off__env_names"), /HTTP_PROXY/);
    assert.match(of("on__env_names"), /HTTPS_PROXY[^]*HTTP_PROXY/);
    assert.doesNotMatch(of("on__env_names"), /ODEK_HOME|DENO_DIR/);
    await host.close();
  },
);
