import assert from "node:assert/strict";
import { join } from "node:path";
import {
  initialMessages,
  instructionsIn,
  MAX_AGENTS_MD_BYTES,
} from "../../src/loop/initial_messages.ts";
import { readInstructions } from "../../src/runtime/read_instructions.ts";

async function layout() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-agents-" }));
  const home = join(root, "home");
  const repo = join(home, "code/repo");
  const workspace = join(repo, "packages/web");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.mkdir(workspace, { recursive: true });
  await Deno.mkdir(join(home, ".odek"), { recursive: true });
  return {
    root,
    home,
    repo,
    workspace,
    options: {
      workspace,
      odekHome: join(home, ".odek"),
      home,
      protectedRoots: [join(home, ".odek")],
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("readInstructions() reads parents' AGENTS.md only inside the repository, nearest last", async () => {
  await using l = await layout();
  await Deno.writeTextFile(join(l.root, "AGENTS.md"), "above home: never\n");
  await Deno.writeTextFile(join(l.home, "code/AGENTS.md"), "above the repository: never\n");
  await Deno.writeTextFile(join(l.repo, "AGENTS.md"), "repo root\n");
  await Deno.writeTextFile(join(l.repo, "packages/AGENTS.md"), "packages\n");
  await Deno.writeTextFile(join(l.workspace, "AGENTS.md"), "the workspace\n");
  await Deno.writeTextFile(join(l.home, ".odek/AGENTS.md"), "operator's own\n");
  const found = await readInstructions(l.options);
  assert.equal(found.operator, "operator's own\n");
  assert.deepEqual(found.project.map((f) => [f.source, f.text]), [
    ["../../AGENTS.md", "repo root\n"],
    ["../AGENTS.md", "packages\n"],
    ["AGENTS.md", "the workspace\n"],
  ]);
  // In the transcript: the operator's trusted and unfenced, the project's fenced, each counted.
  const messages = initialMessages({
    task: "t",
    workspace: l.workspace,
    sandbox: "bwrap",
    operatorInstructions: found.operator!,
    projectInstructions: found.project,
  });
  assert.match(messages[1].content as string, /^# Operator instructions\n[^<]*\noperator's own\n$/);
  assert.equal((messages[2].content as string).match(/<untrusted_content_/g)?.length, 3);
  assert.deepEqual(instructionsIn(messages), [
    { source: "ODEK_HOME/AGENTS.md", lines: 1 },
    { source: "../../AGENTS.md", lines: 1 },
    { source: "../AGENTS.md", lines: 1 },
    { source: "AGENTS.md", lines: 1 },
  ]);
});

Deno.test("readInstructions() reads no parent outside a repository, above the home, or in a protected root", async (t) => {
  await t.step("no repository: only the workspace's own", async () => {
    await using l = await layout();
    await Deno.remove(join(l.repo, ".git"));
    await Deno.writeTextFile(join(l.repo, "AGENTS.md"), "not in a repository\n");
    assert.deepEqual((await readInstructions(l.options)).project, []);
  });
  await t.step("a repository above the home directory: never", async () => {
    await using l = await layout();
    await Deno.remove(join(l.repo, ".git"));
    await Deno.mkdir(join(l.root, ".git"));
    await Deno.writeTextFile(join(l.root, "AGENTS.md"), "above home\n");
    await Deno.writeTextFile(join(l.repo, "AGENTS.md"), "no repository below home\n");
    assert.deepEqual((await readInstructions(l.options)).project, []);
  });
  await t.step("a parent that is a protected root: never", async () => {
    await using l = await layout();
    await Deno.writeTextFile(join(l.repo, "AGENTS.md"), "repo root\n");
    await Deno.writeTextFile(join(l.repo, "packages/AGENTS.md"), "a protected root's\n");
    const protectedRoots = [join(l.repo, "packages")];
    const found = await readInstructions({ ...l.options, protectedRoots });
    assert.deepEqual(found.project.map((f) => f.source), ["../../AGENTS.md"]);
  });
  await t.step("a symlinked AGENTS.md is not followed; a large one is capped", async () => {
    await using l = await layout();
    await Deno.writeTextFile(join(l.root, "secret.txt"), "not for the model\n");
    await Deno.symlink(join(l.root, "secret.txt"), join(l.repo, "AGENTS.md"));
    await Deno.writeTextFile(join(l.workspace, "AGENTS.md"), "x".repeat(MAX_AGENTS_MD_BYTES + 10));
    const found = await readInstructions(l.options);
    assert.deepEqual(found.project.map((f) => f.source), ["AGENTS.md"]);
    assert.match(found.project[0].text, /only the first 262144 were read\]$/);
  });
});
