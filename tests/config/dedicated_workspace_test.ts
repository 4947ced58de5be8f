import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import {
  dedicatedWorkspacePath,
  provisionDedicatedWorkspace,
} from "../../src/config/dedicated_workspace.ts";
import { validateWorkspace } from "../../src/config/validate_workspace.ts";

async function rejection(promise: Promise<unknown>): Promise<OdekError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OdekError, String(error));
    return error;
  }
  assert.fail("expected a rejection");
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** A temp root holding an ODEK_HOME (`<root>/home/.odek`) and an install dir. */
async function layout() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-dedicated-" }));
  const odekHome = join(root, "home", ".odek");
  const installDir = join(root, "install");
  await Deno.mkdir(odekHome, { recursive: true });
  await Deno.mkdir(installDir);
  return {
    root,
    odekHome,
    installDir,
    roots: [odekHome, installDir],
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("dedicatedWorkspacePath() is ODEK_HOME's path with -workspace appended, a sibling", () => {
  assert.equal(dedicatedWorkspacePath("/home/ada/.odek"), "/home/ada/.odek-workspace");
  assert.equal(dedicatedWorkspacePath("/home/ada/.odek/"), "/home/ada/.odek-workspace");
  assert.equal(dedicatedWorkspacePath("/srv/odek/../data"), "/srv/data-workspace");
});

Deno.test("provisionDedicatedWorkspace() creates a missing workspace with mode 0700 whatever the umask", async () => {
  await using l = await layout();
  const path = dedicatedWorkspacePath(l.odekHome);
  const previous = Deno.umask(0o077);
  try {
    Deno.umask(0o000); // a permissive umask must not widen it
    const real = await provisionDedicatedWorkspace(path, { protectedRoots: l.roots });
    assert.equal(real, path);
    const info = await Deno.stat(path);
    assert.ok(info.isDirectory);
    assert.equal(info.mode! & 0o777, 0o700);
    assert.equal(info.uid, Deno.uid());
  } finally {
    Deno.umask(previous);
  }
  // It persists: a second call finds it and changes nothing.
  await Deno.writeTextFile(join(path, "keep.txt"), "kept");
  await provisionDedicatedWorkspace(path, { protectedRoots: l.roots });
  assert.equal(await Deno.readTextFile(join(path, "keep.txt")), "kept");
});

Deno.test("provisionDedicatedWorkspace() checks the overlap before creating: a refused path leaves nothing behind", async (t) => {
  await using l = await layout();
  await t.step("as written: ODEK_HOME inside the install dir", async () => {
    const odekHome = join(l.installDir, "odek");
    const path = dedicatedWorkspacePath(odekHome);
    const error = await rejection(
      provisionDedicatedWorkspace(path, { protectedRoots: [odekHome, l.installDir] }),
    );
    assert.equal(error.code, "WORKSPACE_INVALID");
    assert.match(error.message, /is inside odek's protected directory .*install/);
    assert.match(error.message, /Nothing was created\. Set ODEK_HOME/);
    assert.equal(await exists(path), false, "the directory was created before the check");
  });
  await t.step("resolved: the parent is a link into the install dir", async () => {
    await Deno.symlink(l.installDir, join(l.root, "alias"));
    const path = join(l.root, "alias", "x-workspace");
    const error = await rejection(provisionDedicatedWorkspace(path, { protectedRoots: l.roots }));
    assert.match(
      error.message,
      /inside odek's protected directory .*the path resolves to .*install/,
    );
    assert.equal(await exists(join(l.installDir, "x-workspace")), false);
  });
  await t.step("containing a protected root", async () => {
    const error = await rejection(
      provisionDedicatedWorkspace(l.root, { protectedRoots: l.roots }),
    );
    assert.match(error.message, /contains odek's protected directory/);
  });
});

Deno.test("provisionDedicatedWorkspace() refuses what it cannot trust, each time with the exact fix command", async (t) => {
  await using l = await layout();
  const path = dedicatedWorkspacePath(l.odekHome);
  await t.step("a symlink", async () => {
    await Deno.mkdir(join(l.root, "elsewhere"), { mode: 0o700 });
    await Deno.symlink(join(l.root, "elsewhere"), path);
    const error = await rejection(provisionDedicatedWorkspace(path, { protectedRoots: l.roots }));
    assert.match(error.message, /is a symlink/);
    assert.ok(error.message.includes(`rm ${path} && mkdir -m 700 ${path}`), error.message);
    await Deno.remove(path);
  });
  await t.step("a file", async () => {
    await Deno.writeTextFile(path, "x");
    const error = await rejection(provisionDedicatedWorkspace(path, { protectedRoots: l.roots }));
    assert.match(error.message, /is not a directory/);
    await Deno.remove(path);
  });
  await t.step("mode 0755 (and 0300: private and writable but not readable)", async () => {
    await Deno.mkdir(path);
    for (const mode of [0o755, 0o300]) {
      await Deno.chmod(path, mode);
      const error = await rejection(
        provisionDedicatedWorkspace(path, { protectedRoots: l.roots }),
      );
      assert.ok(error.message.includes(`Run: chmod 700 ${path}.`), error.message);
    }
    await Deno.chmod(path, 0o700);
    await provisionDedicatedWorkspace(path, { protectedRoots: l.roots });
  });
  await t.step({
    name: "owned by another user",
    ignore: Deno.uid() !== 0,
    fn: async () => {
      await Deno.chown(path, 65534, 65534);
      const error = await rejection(
        provisionDedicatedWorkspace(path, { protectedRoots: l.roots }),
      );
      assert.match(error.message, /owned by uid 65534, not by the current user/);
      assert.ok(error.message.includes(`Run: chown 0 ${path}.`), error.message);
      await Deno.chown(path, 0, 0);
    },
  });
  await t.step("a parent that does not exist", async () => {
    const deep = join(l.root, "missing", "parent", "ws");
    const error = await rejection(provisionDedicatedWorkspace(deep, { protectedRoots: l.roots }));
    assert.ok(error.message.includes(`Create it with: mkdir -p -m 700 ${deep}`), error.message);
  });
  await t.step("missing with create: false", async () => {
    const other = join(l.root, "other-workspace");
    const error = await rejection(
      provisionDedicatedWorkspace(other, { protectedRoots: l.roots, create: false }),
    );
    assert.match(error.message, /does not exist/);
    assert.equal(await exists(other), false);
  });
});

Deno.test("the per-spawn check (validateWorkspace with requirePrivate) catches a workspace changed after provisioning", async () => {
  await using l = await layout();
  const path = await provisionDedicatedWorkspace(dedicatedWorkspacePath(l.odekHome), {
    protectedRoots: l.roots,
  });
  const check = () => validateWorkspace(path, { protectedRoots: l.roots, requirePrivate: true });
  assert.equal(await check(), path);
  await Deno.chmod(path, 0o777);
  assert.match((await rejection(check())).message, /mode is 0777/);
  await Deno.remove(path);
  await Deno.symlink(l.installDir, path); // swapped for a link into a protected root
  assert.match((await rejection(check())).message, /is a symlink/);
});
