import assert from "node:assert/strict";
import { join } from "node:path";
import { PINNED_DENO_VERSION } from "../../src/runtime/child_deno_path.ts";
import { ROOT, sourceFiles } from "./_source_files.ts";

const read = (path: string) => Deno.readTextFile(join(ROOT, path));

Deno.test("no task, Dockerfile, src or tools file grants -A or --allow-all", async () => {
  const files = [
    "deno.json",
    "Dockerfile.odek",
    ...(await sourceFiles("src")),
    ...(await sourceFiles("tools")),
  ];
  const offenders: string[] = [];
  for (const file of files) {
    const text = await read(file);
    if (/(^|["'\s])(-A|--allow-all)(["'\s,]|$)/m.test(text)) offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});

Deno.test("one Deno version is pinned in the README, .ci/run, Dockerfile.odek and the code", async () => {
  assert.equal(PINNED_DENO_VERSION, "2.9.6");
  const readme = await read("README.md");
  assert.ok(readme.includes(`npx -y deno@${PINNED_DENO_VERSION} task demo`));
  assert.ok(readme.includes(`npx -y deno@${PINNED_DENO_VERSION} task test`));
  for (const match of readme.matchAll(/deno@([0-9.]+)/g)) {
    assert.equal(match[1], PINNED_DENO_VERSION);
  }
  const ci = await read(".ci/run");
  assert.ok(ci.includes(`DENO_VERSION=${PINNED_DENO_VERSION}`));
  assert.ok(
    ci.includes(`npx -y deno@${PINNED_DENO_VERSION} task test`),
    ".ci/run must run the README's test command",
  );
  assert.ok((await read("Dockerfile.odek")).includes(`DENO_VERSION=${PINNED_DENO_VERSION}`));
});

Deno.test("the README quick start is exactly two commands", async () => {
  const readme = await read("README.md");
  const block = readme.split("## Quick start")[1].match(/```sh\n([\s\S]*?)```/)![1];
  assert.deepEqual(block.trim().split("\n"), [
    `npx -y deno@${PINNED_DENO_VERSION} task demo`,
    `npx -y deno@${PINNED_DENO_VERSION} task test`,
  ]);
});

Deno.test("every dependency is pinned to an exact npm version, and tools/ uses the same versions", async () => {
  const root = JSON.parse(await read("deno.json")).imports as Record<string, string>;
  for (const [name, spec] of Object.entries(root)) {
    assert.match(spec, /^npm:(@[^/]+\/)?[^@]+@\d+\.\d+\.\d+$/, name);
  }
  const tools = JSON.parse(await read("tools/deno.json")).imports as Record<string, string>;
  for (const [name, spec] of Object.entries(tools)) {
    assert.equal(spec, root[name], `tools/deno.json ${name}`);
  }
  const config = JSON.parse(await read("deno.json"));
  assert.equal(config.nodeModulesDir, "auto");
  assert.equal(JSON.parse(await read("tools/deno.json")).nodeModulesDir, "auto");
});

Deno.test("deno.json has the package shape and the tasks the README names", async () => {
  const config = JSON.parse(await read("deno.json"));
  assert.equal(config.name, "@odek/odek");
  assert.match(config.version, /^\d+\.\d+\.\d+$/);
  assert.deepEqual(config.exports, { ".": "./src/mod.ts", "./testing": "./src/testing/mod.ts" });
  for (const task of ["odek", "demo", "test", "ok", "bench", "compile"]) {
    assert.ok(task in config.tasks, task);
  }
});

Deno.test("ODEK_VERSION equals deno.json's version", async () => {
  const { ODEK_VERSION } = await import("../../src/cli/version.ts");
  assert.equal(ODEK_VERSION, JSON.parse(await read("deno.json")).version);
});
