import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { importsOf, ROOT, sourceFiles } from "./_source_files.ts";

// design §7: _util → config → danger → broker, llm, session, checkpoint, approval → loop → runtime →
// mcp, durable → serve → cli.
// A folder imports only from layers to its left (and itself); testing/ may import anything left of cli.
// Below them all sits the tool catalogue with the child protocol, tools/_catalogue/: the one folder
// outside src/ that src/ may import, shared with the tool children.
const CATALOGUE = "tools/_catalogue/";
const RANK: Record<string, number> = {
  _util: 0,
  config: 1,
  danger: 2,
  broker: 3,
  llm: 3,
  session: 3,
  checkpoint: 3,
  approval: 3,
  loop: 4,
  runtime: 5,
  durable: 6,
  mcp: 6,
  serve: 7,
  cli: 8,
};

function layerOf(path: string): string {
  return path.split("/")[1];
}

Deno.test("src/ folders import only from layers to their left", async () => {
  const violations: string[] = [];
  for (const file of await sourceFiles("src")) {
    // The public API, and the installed command's bundle entry (it loads every lazy module).
    if (file === "src/mod.ts" || file === "src/bundle_main.ts") continue;
    const from = layerOf(file);
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const spec of importsOf(text)) {
      if (!spec.startsWith(".")) continue;
      const target = normalize(join(dirname(file), spec));
      if (target.startsWith(CATALOGUE)) continue;
      if (!target.startsWith("src/")) {
        violations.push(`${file} imports ${spec} outside src/ and ${CATALOGUE}`);
        continue;
      }
      const to = layerOf(target);
      if (to === from) continue;
      if (from === "testing") {
        if (to === "cli") violations.push(`${file} imports ${target}`);
        continue;
      }
      if (!(to in RANK) || !(from in RANK) || RANK[to] >= RANK[from]) {
        violations.push(`${file} (${from}) imports ${target} (${to})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("third-party SDKs are imported only from their adapter folder", async () => {
  const owners: Record<string, string> = {
    "eventsource-parser": "src/llm/",
    hono: "src/serve/",
    "@dbos-inc/dbos-sdk": "src/durable/",
    pg: "src/durable/",
    "@modelcontextprotocol/sdk": "src/mcp/",
    "@modelcontextprotocol/client": "src/mcp/",
    "@modelcontextprotocol/core": "src/mcp/",
    "@modelcontextprotocol/server": "src/mcp/",
  };
  const violations: string[] = [];
  for (const file of [...(await sourceFiles("src")), ...(await sourceFiles("tools"))]) {
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const spec of importsOf(text)) {
      for (const [pkg, folder] of Object.entries(owners)) {
        if ((spec === pkg || spec.startsWith(`${pkg}/`)) && !file.startsWith(folder)) {
          violations.push(`${file} imports ${spec}`);
        }
      }
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("src/cli/ constructs no broker, model client or egress proxy: the runtime does", async () => {
  const violations: string[] = [];
  const builders =
    /new (SandboxBroker|OpenAIModel|ToolChildPool|BackgroundJobs)\b|EgressProxy\.start\(/;
  for (const file of await sourceFiles("src/cli")) {
    const text = await Deno.readTextFile(join(ROOT, file));
    if (builders.test(text)) violations.push(file);
    for (const spec of importsOf(text)) {
      const target = normalize(join(dirname(file), spec));
      const banned = [
        "src/broker/sandbox_broker.ts",
        "src/broker/egress_proxy.ts",
        "src/broker/tool_child_pool.ts",
        "src/broker/background_jobs.ts",
        "src/llm/openai_model.ts",
        "src/loop/run_agent.ts",
      ];
      if (banned.includes(target)) violations.push(`${file} imports ${target}`);
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("src/runtime/ reads nothing from the process and never exits it (design §8.1)", async () => {
  const violations: string[] = [];
  const process = /Deno\.(env|cwd\(|exit\(|args\b|addSignalListener|chdir\()/;
  for (const file of await sourceFiles("src/runtime")) {
    const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n");
    lines.forEach((line, index) => {
      const code = line.trimStart();
      if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/**")) return;
      if (process.test(code)) violations.push(`${file}:${index + 1}: ${code}`);
    });
  }
  assert.deepEqual(violations, []);
});

Deno.test("only src/broker spawns processes", async () => {
  const violations: string[] = [];
  for (const file of await sourceFiles("src")) {
    if (file.startsWith("src/broker/")) continue;
    const text = await Deno.readTextFile(join(ROOT, file));
    if (/new Deno\.Command\(|node:child_process|Deno\.run\(/.test(text)) violations.push(file);
  }
  assert.deepEqual(violations, []);
});

Deno.test("tools/_catalogue/ imports only zod and its own files", async () => {
  const violations: string[] = [];
  const files = await sourceFiles(CATALOGUE);
  assert.ok(files.length >= 8, `found only ${files}`);
  for (const file of files) {
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const spec of importsOf(text)) {
      const own = spec.startsWith("./") && !spec.includes("..");
      if (spec !== "zod" && !own) violations.push(`${file} imports ${spec}`);
    }
    // At run time only a string literal naming zod or an own file (the child server loads the
    // protocol's schemas when a line needs them): nothing computed, nothing else.
    const code = text.replace(/^\s*\*.*$/gm, "");
    const dynamic = (code.match(/\bimport\([^)]*\)/g) ?? []).map((c) => c.replace(/\s+/g, ""));
    for (const call of dynamic.filter((c) => !/^import\("(zod|\.\/[\w-]+\.ts)"\)$/.test(c))) {
      violations.push(`${file} imports a module at run time: ${call}`);
    }
  }
  assert.deepEqual(violations, []);
});

Deno.test("tools/ does not import from src/", async () => {
  for (const file of await sourceFiles("tools")) {
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const spec of importsOf(text)) {
      assert.ok(!spec.includes("/src/") && !spec.startsWith("../"), `${file} imports ${spec}`);
    }
  }
});

Deno.test("source files stay under 400 lines", async () => {
  const long: string[] = [];
  for (const file of [...(await sourceFiles("src")), ...(await sourceFiles("tools"))]) {
    const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n").length;
    if (lines > 400) long.push(`${file}: ${lines} lines`);
  }
  assert.deepEqual(long, []);
});
