/**
 * The registry of lazy modules (`src/_util/lazy_module.ts`) is the one way odek's core loads a
 * module on demand, so that the installed command's bundle holds each of them as an entry point
 * of one build (`scripts/build_bundle.ts`, `src/bundle_main.ts`) and neither a run from source
 * nor the bundle loads their graphs up front.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { BUNDLE_ENTRY_GRAPH } from "../../src/_util/bundle_stamp.ts";
import { LAZY_MODULES } from "../../src/_util/lazy_module.ts";
import { ROOT, sourceFiles } from "./_source_files.ts";

/** The core's files: main.ts, src/ and the catalogue the core imports. */
async function coreFiles(): Promise<string[]> {
  return ["main.ts", ...(await sourceFiles("src")), ...(await sourceFiles("tools/_catalogue"))];
}

/** The text of `file` with comment lines (doc comments and `//` lines) blanked. */
function code(text: string): string {
  return text.split("\n").map((line) => /^\s*(\*|\/\*\*|\/\/)/.test(line) ? "" : line).join("\n");
}

const REGISTRY = "src/_util/lazy_module.ts";
const BUNDLE_ENTRY = "src/bundle_main.ts";

Deno.test("no computed import() bypasses the registry of lazy modules", async () => {
  const found: string[] = [];
  for (const file of await coreFiles()) {
    const text = code(await Deno.readTextFile(join(ROOT, file)));
    for (const match of text.matchAll(/(typeof\s+)?\bimport\(\s*([^\s])/g)) {
      if (match[1] !== undefined || match[2] === '"' || match[2] === "'") continue;
      found.push(file);
    }
  }
  // The registry's own computed import; the bundle entry's loader of the lazy modules' outputs
  // and its fall-back to the checkout's sources (a stale bundle: nothing of it runs after that).
  assert.deepEqual(found.sort(), [BUNDLE_ENTRY, BUNDLE_ENTRY, REGISTRY].sort());
});

Deno.test("no lazy module is imported by a literal import() (Deno would pre-load its graph)", async () => {
  const found: string[] = [];
  for (const file of await coreFiles()) {
    const text = code(await Deno.readTextFile(join(ROOT, file)));
    for (const match of text.matchAll(/(typeof\s+)?\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
      if (match[1] !== undefined) continue;
      const target = normalize(join(dirname(file), match[2]));
      if ((LAZY_MODULES as readonly string[]).includes(target.replace(/^src\//, ""))) {
        found.push(`${file} imports ${match[2]}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

Deno.test("every lazyModule() call names a registered module and types it by the same path", async () => {
  const bad: string[] = [];
  let calls = 0;
  for (const file of await coreFiles()) {
    if (file === REGISTRY) continue;
    const text = code(await Deno.readTextFile(join(ROOT, file)));
    const typed = new Set(
      [...text.matchAll(/typeof\s+import\(\s*"([^"]+)"\s*\)/g)].map((m) =>
        normalize(join(dirname(file), m[1]))
      ),
    );
    for (const match of text.matchAll(/\blazyModule\(\s*(["'][^"']*["']|[^)\s]+)/g)) {
      calls++;
      const name = match[1].replace(/^["']|["']$/g, "");
      if (!(LAZY_MODULES as readonly string[]).includes(name)) {
        bad.push(`${file}: lazyModule(${match[1]}) is not in LAZY_MODULES`);
      } else if (!typed.has(`src/${name}`)) {
        bad.push(`${file}: lazyModule("${name}") has no typeof import() of the same module`);
      }
    }
  }
  assert.deepEqual(bad, []);
  assert.ok(calls >= LAZY_MODULES.length, `only ${calls} calls`);
});

Deno.test("every lazy module exists, and the bundle build makes each an entry point", async () => {
  for (const name of LAZY_MODULES) {
    assert.ok((await Deno.stat(join(ROOT, "src", name))).isFile, name);
  }
  const build = await Deno.readTextFile(join(ROOT, "scripts/build_bundle.ts"));
  assert.match(build, /\.\.\.LAZY_MODULES\.map\(\(name\) => `src\/\$\{name\}`\)/);
});

Deno.test("no core module computes a path from its own URL but the checkout root, the registry and the bundle entry", async () => {
  const found: string[] = [];
  for (const file of await coreFiles()) {
    const text = code(await Deno.readTextFile(join(ROOT, file)));
    if (/import\.meta\.(url|dirname|filename|resolve)/.test(text)) found.push(file);
  }
  assert.deepEqual(found.sort(), [BUNDLE_ENTRY, "src/_util/checkout_root.ts", REGISTRY].sort());
});

Deno.test("BUNDLE_ENTRY_GRAPH is the bundle entry's static graph (what odek --version checks)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", BUNDLE_ENTRY],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: { code?: { specifier: string } }[] }[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const queue = [...info.roots];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const dep of bySpecifier.get(next)?.dependencies ?? []) {
      if (dep.code?.specifier) queue.push(dep.code.specifier);
    }
  }
  const root = `file://${ROOT.replace(/\/$/, "")}/`;
  const files = [...seen].map((s) => s.startsWith(root) ? s.slice(root.length) : s).sort();
  assert.deepEqual(files, [...BUNDLE_ENTRY_GRAPH].sort());
});
