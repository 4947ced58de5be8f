import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const TOOLS = fileURLToPath(new URL("../../tools/", import.meta.url));

interface Graph {
  roots: string[];
  modules: {
    specifier: string;
    dependencies?: { code?: { specifier?: string }; isDynamic?: boolean }[];
  }[];
}

/** `deno info --json` of a tool child's entry, with the children's import map. */
async function graphOf(entry: string): Promise<Graph> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${TOOLS}deno.json`, `${TOOLS}${entry}`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/**
 * The modules reachable from the roots: through static imports only (what runs before the child
 * reads its first line), or through literal `import()`s too (what Deno pre-loads with the entry).
 */
function closure(graph: Graph, withDynamic: boolean): Set<string> {
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...graph.roots];
  while (queue.length > 0) {
    const specifier = queue.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dep.code?.specifier && (withDynamic || !dep.isDynamic)) queue.push(dep.code.specifier);
    }
  }
  return seen;
}

const name = (specifier: string) => specifier.replace(/^file:\/\/.*\/tools\//, "");

/** Each catalogue child, and modules of the other children it must never load. */
const CHILDREN: Record<string, string[]> = {
  "files.ts": ["_math_eval.ts", "_json_query.ts", "_web_tools.ts", "egress_forwarder.ts"],
  "compute.ts": ["_read_file.ts", "_patch.ts", "_web_tools.ts", "egress_forwarder.ts"],
  // The web child's egress client (`_web_fetch.ts`) starts the forwarder: its own.
  "web.ts": ["_read_file.ts", "_patch.ts", "_math_eval.ts", "_json_query.ts"],
};

for (const [entry, others] of Object.entries(CHILDREN)) {
  Deno.test(`tools/${entry} starts without zod, any tool's code or stdio web streams: they load on the first call`, async () => {
    const graph = await graphOf(entry);
    const atStart = [...closure(graph, false)].map(name);
    assert.deepEqual(atStart.filter((s) => s.startsWith("npm:")), [], "no npm package at start");
    assert.deepEqual(
      atStart.filter((s) => /_catalogue\/(\w+_tools|child_protocol|mod)\.ts$/.test(s)),
      [],
      "neither the catalogue's schemas nor the protocol's",
    );
    // Its own end of the protocol reads and writes stdio without web streams: their first use
    // costs a child 7-15 ms of start-up (stdio_transport.ts).
    for (const specifier of closure(graph, false)) {
      if (!specifier.startsWith("file:")) continue;
      const text = await Deno.readTextFile(fileURLToPath(specifier));
      assert.doesNotMatch(text, /Deno\.std(in|out)\.(readable|writable)/, `${name(specifier)}`);
    }
    // The graph Deno pre-loads holds this child's own modules, not every file of tools/ (an
    // import with a computed part brings them all in, with the other children's packages).
    const preloaded = [...closure(graph, true)].map(name);
    for (const other of [...others, "module_tool.ts", "host_ports.ts"]) {
      assert.ok(!preloaded.includes(other), `${entry} pre-loads ${other}`);
    }
  });
}
