import assert from "node:assert/strict";
import { assignToolNames, MODEL_TOOL_NAME, modelToolName } from "../../src/mcp/tool_names.ts";

Deno.test("modelToolName() is <server>__<tool>, shortened with a stable hash and valid for the model", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["github", "create_issue", /^github__create_issue$/],
    ["fs", "read-file", /^fs__read-file$/],
    ["fs", "files.read", /^fs__files_read_[0-9a-f]{8}$/],
    ["fs", "dir/list", /^fs__dir_list_[0-9a-f]{8}$/],
    ["fs", "日本語", /^fs______[0-9a-f]{8}$/],
    ["srv", "x".repeat(200), /^srv__x{50}_[0-9a-f]{8}$/],
  ];
  for (const [server, tool, expected] of cases) {
    await t.step(`${server} ${tool.slice(0, 20)}`, () => {
      const name = modelToolName(server, tool);
      assert.match(name, expected);
      assert.match(name, MODEL_TOOL_NAME);
      assert.equal(modelToolName(server, tool), name, "stable");
    });
  }
  await t.step("two long names differing only at the end get different names", () => {
    const a = modelToolName("s", `${"y".repeat(80)}a`);
    const b = modelToolName("s", `${"y".repeat(80)}b`);
    assert.notEqual(a, b);
  });
});

Deno.test("assignToolNames() refuses both tools of a collision, naming both, and never a built-in's name", () => {
  const { names, refused } = assignToolNames([
    { server: "a_", tool: "x", value: 1 }, // a___x
    { server: "a", tool: "_x", value: 2 }, // a___x
    { server: "a", tool: "ok", value: 3 },
    { server: "b", tool: "ok", value: 4 },
  ], ["a__ok"]);
  assert.deepEqual([...names.keys()], ["b__ok"]);
  assert.equal(refused.length, 2);
  assert.match(
    refused.join("\n"),
    /"x" of MCP server a_ and "_x" of MCP server a would both be named a___x/,
  );
  assert.match(refused.join("\n"), /a__ok, which is a built-in tool/);
});
