import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { GitCheckpointStore } from "../../src/checkpoint/git_checkpoint_store.ts";

/** A scratch root with `ws/` (the workspace) and `cp/` (the shadow repositories). */
async function scratch() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-cp-" }));
  const workspace = join(root, "ws");
  await Deno.mkdir(workspace);
  return {
    root,
    workspace,
    open: (limits?: { maxFiles: number; maxBytes: number; maxFileBytes: number }) =>
      GitCheckpointStore.open({
        dir: join(root, "cp"),
        workspace,
        sessionId: "s1",
        ...(limits ? { limits } : {}),
      }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

async function tree(dir: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    const info = await Deno.lstat(join(dir, path));
    if (info.isSymlink) out[path] = `-> ${await Deno.readLink(join(dir, path))}`;
    else if (info.isDirectory) Object.assign(out, await tree(dir, path));
    else {
      const bytes = await Deno.readFile(join(dir, path));
      out[path] = `${(info.mode! & 0o777).toString(8)} ${Array.from(bytes).join(",")}`;
    }
  }
  return out;
}

Deno.test("GitCheckpointStore restores files byte for byte after they are all deleted", async () => {
  await using s = await scratch();
  const ws = s.workspace;
  await Deno.mkdir(join(ws, "src/deep/er"), { recursive: true });
  await Deno.writeTextFile(join(ws, "src/main.ts"), "console.log(1);\n");
  await Deno.writeFile(join(ws, "src/deep/er/blob.bin"), new Uint8Array([0, 1, 2, 255, 0, 10]));
  await Deno.writeTextFile(join(ws, "run.sh"), "#!/bin/sh\necho hi\n");
  await Deno.chmod(join(ws, "run.sh"), 0o755);
  await Deno.writeTextFile(join(ws, "private.txt"), "mine\n");
  await Deno.chmod(join(ws, "private.txt"), 0o600);
  await Deno.writeTextFile(join(ws, "empty"), "");
  await Deno.symlink("src/main.ts", join(ws, "link"));
  const before = await tree(ws);
  await using store = await s.open();
  const checkpoint = await store.record({ phase: "before", label: "before shell" });
  for await (const entry of Deno.readDir(ws)) {
    await Deno.remove(join(ws, entry.name), { recursive: true });
  }
  await Deno.writeTextFile(join(ws, "new.txt"), "made after\n");
  const changes = await store.diff(checkpoint.id);
  assert.deepEqual(
    changes.map((c) => `${c.change} ${c.path}`),
    [
      "deleted empty",
      "deleted link",
      "added new.txt",
      "deleted private.txt",
      "deleted run.sh",
      "deleted src/deep/er/blob.bin",
      "deleted src/main.ts",
    ],
  );
  const result = await store.restore(checkpoint.id);
  assert.deepEqual(await tree(ws), before);
  assert.deepEqual(result.deleted, ["new.txt"]);
  assert.equal(result.written.length, 6);
});

Deno.test("GitCheckpointStore returns the newest checkpoint when nothing changed", async () => {
  await using s = await scratch();
  await Deno.writeTextFile(join(s.workspace, "a.txt"), "a\n");
  await using store = await s.open();
  const one = await store.record({ phase: "before", label: "one" });
  const two = await store.record({ phase: "after", label: "two" });
  assert.equal(two.id, one.id);
  await Deno.writeTextFile(join(s.workspace, "a.txt"), "b\n");
  const three = await store.record({ phase: "after", label: "three" });
  assert.notEqual(three.id, one.id);
  assert.deepEqual((await store.list()).map((c) => c.label), ["one", "three"]);
  const [change] = await store.diff(one.id, three.id);
  assert.deepEqual(
    { path: change.path, change: change.change, added: change.added, removed: change.removed },
    { path: "a.txt", change: "modified", added: 1, removed: 1 },
  );
});

Deno.test("GitCheckpointStore sees a change that keeps the size and the modification time", async () => {
  await using s = await scratch();
  const file = join(s.workspace, "same.txt");
  await Deno.writeTextFile(file, "aaaa\n");
  const old = new Date(Date.now() - 60_000);
  await Deno.utime(file, old, old);
  await using store = await s.open();
  const first = await store.record({ phase: "before", label: "first" });
  await Deno.writeTextFile(file, "bbbb\n");
  await Deno.utime(file, old, old); // the inode's change time still moves
  const second = await store.record({ phase: "after", label: "second" });
  assert.notEqual(second.id, first.id);
  // A new process (a fresh store on the same repository) trusts the saved cache only when valid.
  await store.close();
  await using again = await s.open();
  await Deno.writeTextFile(file, "cccc\n");
  await Deno.utime(file, old, old);
  assert.deepEqual((await again.diff(second.id)).map((c) => c.path), ["same.txt"]);
});

Deno.test("GitCheckpointStore leaves .gitignore'd paths alone and reports those that changed", async () => {
  await using s = await scratch();
  const ws = s.workspace;
  await Deno.writeTextFile(join(ws, ".gitignore"), "node_modules/\n*.log\n");
  await Deno.mkdir(join(ws, "node_modules/left-pad"), { recursive: true });
  await Deno.mkdir(join(ws, "node_modules/right-pad"), { recursive: true });
  await Deno.writeTextFile(join(ws, "node_modules/left-pad/index.js"), "module.exports = 1;\n");
  await Deno.writeTextFile(join(ws, "debug.log"), "old log\n");
  await Deno.writeTextFile(join(ws, "index.js"), "require('left-pad');\n");
  await using store = await s.open();
  const checkpoint = await store.record({ phase: "before", label: "before" });
  await Deno.remove(join(ws, "node_modules/left-pad"), { recursive: true });
  await Deno.remove(join(ws, "index.js"));
  await Deno.writeTextFile(join(ws, "debug.log"), "a much longer new log\n");
  const result = await store.restore(checkpoint.id);
  assert.deepEqual(result.written, ["index.js"]);
  // Not restored, not deleted: what .gitignore excludes is never touched.
  assert.equal(await Deno.readTextFile(join(ws, "debug.log")), "a much longer new log\n");
  assert.equal(await Deno.stat(join(ws, "node_modules/left-pad")).catch(() => null), null);
  assert.ok((await Deno.stat(join(ws, "node_modules/right-pad"))).isDirectory);
  assert.deepEqual(
    result.notRestorable.map((n) => `${n.change} ${n.path} (${n.reason})`),
    ["changed debug.log (ignored)", "changed node_modules (ignored)"],
  );
});

Deno.test("GitCheckpointStore never writes protected workspace files and never .git", async () => {
  await using s = await scratch();
  const ws = s.workspace;
  await Deno.mkdir(join(ws, ".git/hooks"), { recursive: true });
  await Deno.mkdir(join(ws, ".vscode"));
  await Deno.writeTextFile(join(ws, ".envrc"), "export A=1\n");
  await Deno.writeTextFile(join(ws, ".vscode/tasks.json"), "{}\n");
  await Deno.writeTextFile(join(ws, ".git/config"), "[core]\n");
  await Deno.writeTextFile(join(ws, "a.txt"), "a\n");
  await using store = await s.open();
  const checkpoint = await store.record({ phase: "before", label: "before" });
  await Deno.writeTextFile(join(ws, ".envrc"), "export A=2\n");
  await Deno.remove(join(ws, ".vscode/tasks.json"));
  await Deno.writeTextFile(join(ws, ".git/config"), "[core]\n\thooksPath = x\n");
  await Deno.writeTextFile(join(ws, "a.txt"), "changed\n");
  const result = await store.restore(checkpoint.id);
  assert.deepEqual(result.written, ["a.txt"]);
  assert.deepEqual(result.protected, [".envrc", ".vscode/tasks.json"]);
  assert.equal(await Deno.readTextFile(join(ws, ".envrc")), "export A=2\n");
  assert.equal(await Deno.readTextFile(join(ws, ".git/config")), "[core]\n\thooksPath = x\n");
  assert.equal(await Deno.stat(join(ws, ".vscode/tasks.json")).catch(() => null), null);
});

Deno.test("GitCheckpointStore never writes through a symlink that replaced a folder", async () => {
  await using s = await scratch();
  const ws = s.workspace;
  const outside = join(s.root, "outside");
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "marker"), "untouched\n");
  await Deno.mkdir(join(ws, "conf"));
  await Deno.writeTextFile(join(ws, "conf/marker"), "from the checkpoint\n");
  await using store = await s.open();
  const checkpoint = await store.record({ phase: "before", label: "before" });
  await Deno.remove(join(ws, "conf"), { recursive: true });
  await Deno.symlink(outside, join(ws, "conf"));
  await store.restore(checkpoint.id);
  assert.equal(await Deno.readTextFile(join(outside, "marker")), "untouched\n");
  assert.ok((await Deno.lstat(join(ws, "conf"))).isDirectory);
  assert.equal(await Deno.readTextFile(join(ws, "conf/marker")), "from the checkpoint\n");
});

Deno.test("GitCheckpointStore restores only the paths asked for", async () => {
  await using s = await scratch();
  const ws = s.workspace;
  await Deno.mkdir(join(ws, "a"));
  await Deno.writeTextFile(join(ws, "a/one.txt"), "1\n");
  await Deno.writeTextFile(join(ws, "b.txt"), "b\n");
  await using store = await s.open();
  const checkpoint = await store.record({ phase: "before", label: "before" });
  await Deno.remove(join(ws, "a"), { recursive: true });
  await Deno.remove(join(ws, "b.txt"));
  const result = await store.restore(checkpoint.id, ["a"]);
  assert.deepEqual(result.written, ["a/one.txt"]);
  assert.equal(await Deno.stat(join(ws, "b.txt")).catch(() => null), null);
});

Deno.test("GitCheckpointStore refuses a workspace over its caps with what to do", async () => {
  await using s = await scratch();
  await Deno.mkdir(join(s.workspace, "data"));
  for (let i = 0; i < 12; i++) await Deno.writeTextFile(join(s.workspace, `data/${i}`), "x");
  await using store = await s.open({ maxFiles: 10, maxBytes: 1 << 20, maxFileBytes: 1 << 20 });
  await assert.rejects(
    store.record({ phase: "before", label: "before" }),
    (error: unknown) =>
      error instanceof OdekError && error.code === "CHECKPOINT_UNAVAILABLE" &&
      /more than 10 files \(checkpoints\.maxFiles\).*data\/ \(11 files.*\.gitignore/.test(
        error.message,
      ),
  );
});

Deno.test("GitCheckpointStore lists a file over the per-file cap as not recorded", async () => {
  await using s = await scratch();
  await Deno.writeTextFile(join(s.workspace, "big.bin"), "x".repeat(2048));
  await Deno.writeTextFile(join(s.workspace, "small.txt"), "x");
  await using store = await s.open({ maxFiles: 10, maxBytes: 1 << 20, maxFileBytes: 1024 });
  const checkpoint = await store.record({ phase: "before", label: "before" });
  assert.equal(checkpoint.files, 1);
  await Deno.remove(join(s.workspace, "big.bin"));
  const result = await store.restore(checkpoint.id);
  assert.deepEqual(result.notRestorable, [
    { path: "big.bin", change: "deleted", reason: "too_large" },
  ]);
});

const git = await new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);
if (!git) console.error("skipping the git fsck check: git is not installed (apt-get install git)");

Deno.test({
  name: "GitCheckpointStore writes a repository git itself reads and finds sound",
  ignore: !git,
  fn: async () => {
    await using s = await scratch();
    await Deno.writeTextFile(join(s.workspace, "a.txt"), "hello\n");
    await using store = await s.open();
    const checkpoint = await store.record({ phase: "before", label: "before" });
    // git reads only the shadow repository here (trusted, odek's own), never the workspace.
    const env = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", HOME: s.root };
    const run = (...args: string[]) =>
      new Deno.Command("git", { args: ["--git-dir", store.gitdir, ...args], env }).output();
    const fsck = await run("fsck", "--strict");
    assert.ok(fsck.success, new TextDecoder().decode(fsck.stderr));
    const show = await run("show", `${checkpoint.id}:a.txt`);
    assert.equal(new TextDecoder().decode(show.stdout), "hello\n");
  },
});

Deno.test("a restore never writes where the repository's core.hooksPath points (husky's .husky/)", async () => {
  await using s = await scratch();
  const ws = s.workspace;
  await Deno.mkdir(join(ws, ".husky"));
  // A hook something planted while a checkpoint was taken (a detached job, another process).
  await Deno.writeTextFile(join(ws, ".husky/pre-commit"), "#!/bin/sh\n", { mode: 0o755 });
  await Deno.writeTextFile(join(ws, "a.txt"), "a\n");
  await using store = await s.open();
  const before = await store.record({ phase: "before", label: "with the hook" });
  await Deno.remove(join(ws, ".husky/pre-commit"));
  await Deno.writeTextFile(join(ws, "a.txt"), "changed\n");
  const result = await store.restore(before.id, undefined, { protectedExtra: [".husky"] });
  assert.deepEqual(result.written, ["a.txt"]);
  assert.deepEqual(result.protected, [".husky/pre-commit"]);
  assert.equal(
    await Deno.lstat(join(ws, ".husky/pre-commit")).then(() => true, () => false),
    false,
  );
  // The control: without the repository's places, the same restore writes the hook back.
  const again = await store.restore(before.id);
  assert.deepEqual(again.written, [".husky/pre-commit"]);
});
