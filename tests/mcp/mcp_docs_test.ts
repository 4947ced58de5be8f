import assert from "node:assert/strict";
import {
  HttpMcpServerSchema,
  MCP_SERVER_DEFAULTS,
  StdioMcpServerSchema,
} from "../../src/config/mcp_server_config.ts";

Deno.test("docs/mcp.md's configuration table lists exactly the keys of an mcpServers entry, with the limits' defaults", async () => {
  const text = await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url));
  const table = text.split("## Configuration (`mcpServers.<name>`)")[1].split("\n## ")[0];
  const rows = table.split("\n").filter((l) => l.startsWith("| `")).map((l) =>
    l.split("|").slice(1, -1).map((cell) => cell.trim())
  );
  const documented = rows.flatMap((r) => [...r[0].matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]));
  const keys = new Set([
    ...Object.keys(StdioMcpServerSchema.shape),
    ...Object.keys(HttpMcpServerSchema.shape),
  ]);
  keys.delete("type");
  assert.deepEqual([...new Set(documented)].sort(), [...keys].sort());
  const shown = Object.fromEntries(
    rows.map((r) => [r[0].replace(/`/g, ""), r[2].replace(/`/g, "")]),
  );
  assert.equal(shown.timeoutSeconds, String(MCP_SERVER_DEFAULTS.timeoutSeconds));
  assert.equal(shown.maxResponseBytes, String(MCP_SERVER_DEFAULTS.maxResponseBytes));
  assert.equal(shown.maxResultChars, String(MCP_SERVER_DEFAULTS.maxResultChars));
});
