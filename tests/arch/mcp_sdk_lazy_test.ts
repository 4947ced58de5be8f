import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./_source_files.ts";

const read = (path: string) => Deno.readTextFile(join(ROOT, path));

/**
 * What Deno loads with `entry`: its static imports and every literal `import("…")`, transitively
 * (Deno pre-loads the graph of a literal dynamic import together with its importer's; only a
 * computed specifier defers a module until the import runs). From `deno info --json`.
 */
async function loadedWith(entry: string): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", join(ROOT, "deno.json"), join(ROOT, entry)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: { code?: { specifier?: string } }[] }[];
  };
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...graph.roots];
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dep.code?.specifier) queue.push(dep.code.specifier);
    }
  }
  return seen;
}

Deno.test("odek run does not load the MCP SDK with its modules (it loads on demand), and no openai SDK at all", async () => {
  const loaded = await loadedWith("src/cli/run_command.ts");
  assert.ok(
    [...loaded].some((s) => s.endsWith("/src/mcp/mcp_tools.ts")),
    "the run command reaches the MCP entry",
  );
  const sdks = [...loaded].filter((s) => /^npm:\/?(@modelcontextprotocol\/|openai@)/.test(s));
  assert.deepEqual(sdks, []);
  // ...and the MCP entry does load its SDK on demand.
  assert.match(await read("src/mcp/mcp_tools.ts"), /lazyModule\(\s*"mcp\/_mcp_provider\.ts"/);
  // The model client is fetch and eventsource-parser (docs/model_client.md): no openai package.
  const config = JSON.parse(await read("deno.json"));
  assert.ok(!("openai" in config.imports), "openai is not in the import map");
});

Deno.test("the CLI dispatcher loads one command's modules, not every command's", async () => {
  const loaded = [...(await loadedWith("main.ts"))].filter((s) => s.includes("/src/"));
  assert.ok(loaded.length < 15, `main.ts loads ${loaded.length} modules:\n${loaded.join("\n")}`);
  const cli = [...(await loadedWith("src/cli/main.ts"))].filter((s) => s.includes("/src/"));
  // Every command through the lazy-module registry: a literal import("./chat_command.ts") made every
  // `odek run` load the chat, serve and worker graphs too (~440 modules) before it could start.
  const commands = cli.filter((s) => s.endsWith("_command.ts"));
  assert.deepEqual(commands, [], `the dispatcher's graph holds commands:\n${commands.join("\n")}`);
  assert.ok(cli.length < 15, `src/cli/main.ts loads ${cli.length} modules:\n${cli.join("\n")}`);
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
