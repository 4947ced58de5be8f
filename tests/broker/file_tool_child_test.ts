// The new file tools end to end: the real tools/files.ts in bwrap (and with Deno flags alone),
// through ToolChildPool and SandboxBroker, in writable and read-only scopes. A patch in a
// read-only scope is a clean denial and leaves the file unchanged.
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { ToolChildPool } from "../../src/broker/tool_child_pool.ts";
import { makeSandboxFixture, type SandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

function scope(workspace: string, writable: boolean): PermissionSet {
  return {
    readPaths: [workspace],
    writePaths: writable ? [workspace] : [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
  };
}

async function plantProject(f: SandboxFixture): Promise<void> {
  const files: Record<string, string> = {
    ".gitignore": "*.log\n",
    "src/a.ts": "export const a = 1;\nexport const b = 1;\n",
    "src/b.ts": "// TODO: b\n",
    "debug.log": "TODO in a log\n",
    "node_modules/m/index.js": "// TODO in a dependency\n",
  };
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(f.workspace, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(f.workspace, path), content);
  }
}

async function readOnlyToolsWork(f: SandboxFixture): Promise<void> {
  await plantProject(f);
  const pool = new ToolChildPool({ context: f.context });
  const options = { set: scope(f.workspace, false), workspace: f.workspace };
  try {
    assert.deepEqual(await pool.call("search_files", { pattern: "TODO" }, options), {
      ok: true,
      output: "src/b.ts:1:// TODO: b",
    });
    const tree = await pool.call("tree", {}, options);
    assert.ok(tree.ok, JSON.stringify(tree));
    assert.match(
      tree.output,
      /^\.\/\n {2}\.gitignore \(6 bytes\)\n {2}src\/\n {4}a\.ts \(40 bytes\)\n/,
    );
    assert.doesNotMatch(tree.output, /node_modules|debug\.log/);
    const info = await pool.call("file_info", { path: "src/a.ts" }, options);
    assert.ok(info.ok && /type: file\nsize: 40 bytes[^]*lines: 2$/.test(info.output));
    assert.deepEqual(
      await pool.call("head_tail", { path: "src/a.ts", from: "tail", lines: 1 }, options),
      {
        ok: true,
        output: "2|export const b = 1;\n[last 1 of 2 lines of src/a.ts]",
      },
    );
    const patched = await pool.call(
      "patch",
      { path: "src/a.ts", old_string: "b = 1", new_string: "b = 2" },
      options,
    );
    assert.equal(!patched.ok && patched.error.kind, "denied", JSON.stringify(patched));
    assert.match(!patched.ok ? patched.error.message : "", /patch was denied by the sandbox/);
    assert.equal(
      await Deno.readTextFile(join(f.workspace, "src/a.ts")),
      "export const a = 1;\nexport const b = 1;\n",
      "the file is unchanged",
    );
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(join(f.workspace, "src")))).map((e) => e.name).sort(),
      ["a.ts", "b.ts"],
      "no temporary file is left behind",
    );
  } finally {
    await pool.close();
  }
}

sandboxTest(
  "ToolChildPool.call() runs search_files, tree, file_info and head_tail in a read-only bwrap child, and denies patch there",
  async () => {
    await using f = await makeSandboxFixture();
    await readOnlyToolsWork(f);
  },
);

Deno.test("ToolChildPool.call() runs the read-only file tools and denies patch with Deno flags alone", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  await readOnlyToolsWork(f);
});

sandboxTest(
  "ToolChildPool.call() patches in a writable bwrap child and refuses ambiguous edits there",
  async () => {
    await using f = await makeSandboxFixture();
    await plantProject(f);
    const pool = new ToolChildPool({ context: f.context });
    const options = { set: scope(f.workspace, true), workspace: f.workspace };
    try {
      const ambiguous = await pool.call(
        "patch",
        { path: "src/a.ts", old_string: " = 1;", new_string: " = 2;" },
        options,
      );
      assert.equal(!ambiguous.ok && ambiguous.error.kind, "failed");
      assert.match(!ambiguous.ok ? ambiguous.error.message : "", /occurs 2 times .* at lines 1, 2/);
      const diff =
        "@@ -1,2 +1,2 @@\n export const a = 1;\n-export const b = 1;\n+export const b = 3;\n";
      const patched = await pool.call("patch", { path: "src/a.ts", diff }, options);
      assert.ok(patched.ok, JSON.stringify(patched));
      assert.match(patched.output, /^Patched src\/a\.ts:\n--- src\/a\.ts\n/);
      assert.equal(
        await Deno.readTextFile(join(f.workspace, "src/a.ts")),
        "export const a = 1;\nexport const b = 3;\n",
      );
      await Deno.symlink(join(f.outside, "secret.txt"), join(f.workspace, "link"));
      const escaped = await pool.call(
        "patch",
        { path: "link", old_string: "outside", new_string: "x" },
        options,
      );
      assert.equal(!escaped.ok && escaped.error.kind, "denied");
      assert.equal(await Deno.readTextFile(join(f.outside, "secret.txt")), "outside-secret\n");
    } finally {
      await pool.close();
    }
  },
);

sandboxTest("SandboxBroker.run() lets an untrusted run search but not patch", async () => {
  await using f = await makeSandboxFixture();
  await plantProject(f);
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel: "untrusted",
  });
  try {
    const found = await broker.run({ id: "1", name: "search_files", args: { pattern: "TODO" } });
    assert.deepEqual(found, { ok: true, output: "src/b.ts:1:// TODO: b" });
    const patched = await broker.run({
      id: "2",
      name: "patch",
      args: { path: "src/a.ts", old_string: "a = 1", new_string: "a = 9" },
    });
    assert.equal(!patched.ok && patched.error.kind, "denied");
    const invalid = await broker.run({ id: "3", name: "patch", args: { path: "src/a.ts" } });
    assert.equal(!invalid.ok && invalid.error.kind, "invalid_arguments");
    assert.equal(
      await Deno.readTextFile(join(f.workspace, "src/a.ts")),
      "export const a = 1;\nexport const b = 1;\n",
    );
  } finally {
    await broker.close();
  }
});
