import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { ROOT } from "./_source_files.ts";

const read = (path: string) => Deno.readTextFile(join(ROOT, path));

/** Value imports (not `import type`, not dynamic `import()`): what loading a module loads. */
function staticValueImports(text: string): string[] {
  const out: string[] = [];
  const pattern = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']/g;
  for (const m of text.matchAll(pattern)) if (!m[2]) out.push(m[3]);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+["']([^"']+)["']/g)) out.push(m[1]);
  return out;
}

Deno.test("the MCP SDK loads only when a server is configured: no static import path from main.ts reaches it", async () => {
  const seen = new Set<string>();
  const reached: string[] = [];
  const queue = [
    "main.ts",
    "src/cli/main.ts",
    "src/cli/run_command.ts",
    "src/cli/continue_command.ts",
    "src/mcp/mod.ts",
  ];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of staticValueImports(await read(file))) {
      if (spec.startsWith("@modelcontextprotocol/")) reached.push(`${file} imports ${spec}`);
      if (spec.startsWith(".")) queue.push(normalize(join(dirname(file), spec)));
    }
  }
  assert.ok(seen.has("src/mcp/mcp_tools.ts"), "the run command reaches the MCP entry");
  assert.deepEqual(reached, []);
  // ...and the entry does load it on demand.
  assert.match(await read("src/mcp/mcp_tools.ts"), /await import\("\.\/_mcp_provider\.ts"\)/);
});

Deno.test("both MCP conformance suites are pinned in the test tasks, the same in each, and nowhere in the import map", async () => {
  const config = JSON.parse(await read("deno.json"));
  const pins = (command: string) =>
    [...command.matchAll(/(ODEK_MCP_CONFORMANCE_\d+)=(\S+)/g)].map((m) => `${m[1]}=${m[2]}`);
  const main = pins(config.tasks.test.command);
  assert.deepEqual(main, [
    "ODEK_MCP_CONFORMANCE_2025=@modelcontextprotocol/conformance@0.1.16",
    "ODEK_MCP_CONFORMANCE_2026=@modelcontextprotocol/conformance@0.2.0-alpha.12",
  ]);
  assert.deepEqual(pins(config.tasks["test:slow"].command), main);
  assert.ok(
    !Object.values(config.imports as Record<string, string>).some((s) => s.includes("conformance")),
  );
  assert.match(config.tasks.test.command, /--ignore=tests\/slow\//);
  assert.match(await read(".ci/run"), /task test:slow/);
});
