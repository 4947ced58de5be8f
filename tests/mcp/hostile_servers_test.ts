import assert from "node:assert/strict";
import { SANDBOX_CHECK_PASSED } from "../../src/broker/_sandbox_check.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { hostile, mcpFixture, processesWith, waitFor } from "./_mcp_fixture.ts";

sandboxTest(
  "MCP: hostile server calls end as clear tool errors; odek keeps running and no process is left",
  async (t) => {
    await using m = await mcpFixture({
      servers: (marker, token) => ({ bad: hostile(marker, token, [], { timeoutSeconds: 2 }) }),
      scripts: [[
        { toolCalls: [{ id: "c1", name: "bad__echo", arguments: { text: "hello" } }] },
        { toolCalls: [{ id: "c2", name: "bad__hang", arguments: {} }] },
        { toolCalls: [{ id: "c3", name: "bad__flood", arguments: { lines: 3000 } }] },
        { toolCalls: [{ id: "c4", name: "bad__huge", arguments: { bytes: 20 * 1024 * 1024 } }] },
        { toolCalls: [{ id: "c5", name: "bad__spawn_grandchild", arguments: {} }] },
        { toolCalls: [{ id: "c6", name: "bad__crash", arguments: {} }] },
        { toolCalls: [{ id: "c7", name: "bad__echo", arguments: { text: "again" } }] },
        { toolCalls: [{ id: "c8", name: "bad__spawn_grandchild", arguments: {} }] },
        { text: "done" },
      ]],
    });
    const host = await m.open("use the bad server");
    const specs = () => m.f.models[0].requests[0].tools.map((s) => s.function.name);
    const run = await host.startRun();
    const outcome = await run.result;
    assert.equal(outcome.type, "completed", JSON.stringify(outcome));
    const results = await m.results(host);
    await t.step(
      "the tools are offered under the server's prefix; a bad schema is left out",
      () => {
        assert.ok(specs().includes("bad__echo") && specs().includes("bad__ref_schema"));
        assert.ok(!specs().includes("bad__bad_schema"));
        assert.ok(
          m.warnings.some((w) => /bad_schema.*not an object/.test(w)),
          m.warnings.join("\n"),
        );
      },
    );
    await t.step("a plain call's result reaches the transcript, fenced as untrusted", () => {
      assert.match(results[0], /untrusted_content_[0-9a-f]+ source="bad__echo"[^]*hello/);
    });
    await t.step("a hanging call times out and a cancellation reaches the server", async () => {
      assert.match(results[1], /error \(timeout\)[^]*did not answer hang within 2 s/);
      assert.ok(
        await waitFor(async () => (await m.marks()).some((l) => l.startsWith("cancelled"))),
      );
    });
    await t.step("stdout noise is logged and the call still answers", async () => {
      assert.match(results[2], /flooded 3000 lines/);
      const log = await Deno.readTextFile(`${m.f.odekHome}/logs/mcp/bad.log`);
      assert.match(log, /stdout \(not MCP\): log line 0/);
      assert.match(log, /more lines that are not MCP messages follow/);
      assert.ok(!log.includes(SANDBOX_CHECK_PASSED), "the sandbox check's word is not logged");
    });
    await t.step("a 20 MB answer is a clear error, never held", () => {
      assert.match(
        results[3],
        /error \(failed\)[^]*20971\d+ bytes, more than this server's maxResponseBytes/,
      );
    });
    await t.step("an exit mid-call is a clear error and the next call restarts the server", () => {
      assert.match(results[4], /started \d+/);
      assert.match(
        results[5],
        /error \(failed\)[^]*MCP server bad exited \(exit code 3\) while calling crash/,
      );
      assert.match(results[6], /again/);
    });
    await t.step("the restarted server and its grandchild run until the host closes", async () => {
      assert.match(results[7], /started \d+/);
      const running = await processesWith(m.token);
      assert.ok(running.some((l) => /grandchild-/.test(l)), running.join("\n"));
      assert.ok(running.some((l) => /hostile_server/.test(l)), running.join("\n"));
    });
    await host.close();
    await t.step("no process of the server (nor its grandchild) is left", async () => {
      assert.ok(
        await waitFor(async () => (await processesWith(m.token)).length === 0),
        (await processesWith(m.token)).join("\n"),
      );
    });
  },
);

sandboxTest(
  "MCP: two servers with the same tool both load; a tool named like a built-in never replaces it",
  async () => {
    await using m = await mcpFixture({
      servers: (marker, token) => ({
        one: hostile(marker, token, ["--tools", "echo,read_file"]),
        two: hostile(marker, token, ["--tools", "echo"]),
      }),
      scripts: [[
        {
          toolCalls: [
            { id: "c1", name: "one__echo", arguments: { text: "from one" } },
            { id: "c2", name: "two__echo", arguments: { text: "from two" } },
            { id: "c3", name: "one__read_file", arguments: { path: "x" } },
          ],
        },
        { text: "done" },
      ]],
    });
    const host = await m.open("echo on both");
    const outcome = await (await host.startRun()).result;
    assert.equal(outcome.type, "completed", JSON.stringify(outcome));
    const names = m.f.models[0].requests[0].tools.map((s) => s.function.name);
    assert.ok(names.includes("one__echo") && names.includes("two__echo"), names.join(","));
    assert.equal(names.filter((n) => n === "read_file").length, 1);
    const results = await m.results(host);
    assert.deepEqual(m.warnings, []);
    const of = (name: string) => results.find((r) => r.includes(`source="${name}"`)) ?? "";
    assert.match(of("one__echo"), /from one/);
    assert.match(of("two__echo"), /from two/);
    assert.match(of("one__read_file"), /server read_file x/);
    await host.close();
  },
);
