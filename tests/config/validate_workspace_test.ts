import assert from "node:assert/strict";
import { isInside, validateWorkspace } from "../../src/config/validate_workspace.ts";
import { OdekError } from "../../src/_util/odek_error.ts";

/** A temp dir with `home` (ODEK_HOME), `install` and `work` directories. */
async function withTree(body: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-ws-" }));
  try {
    for (const dir of ["home", "install", "work"]) await Deno.mkdir(`${root}/${dir}`);
    await body(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function refusal(
  path: string,
  protectedRoots: string[],
  requirePrivate = false,
): Promise<string> {
  try {
    await validateWorkspace(path, { protectedRoots, requirePrivate });
  } catch (error) {
    assert.ok(error instanceof OdekError);
    assert.equal(error.code, "WORKSPACE_INVALID");
    return error.message;
  }
  assert.fail(`workspace ${path} was accepted`);
}

Deno.test("validateWorkspace() returns the real path of a valid workspace", async () => {
  await withTree(async (root) => {
    const roots = [`${root}/home`, `${root}/install`];
    assert.equal(
      await validateWorkspace(`${root}/work`, { protectedRoots: roots }),
      `${root}/work`,
    );
    await Deno.mkdir(`${root}/real/sub`, { recursive: true });
    await Deno.symlink(`${root}/real`, `${root}/alias`);
    assert.equal(
      await validateWorkspace(`${root}/alias/sub/`, { protectedRoots: roots }),
      `${root}/real/sub`,
    );
  });
});

Deno.test("validateWorkspace() refuses a missing path, a file and a symlink, saying what to do", async () => {
  await withTree(async (root) => {
    assert.match(
      await refusal(`${root}/nope`, []),
      new RegExp(`does not exist.*mkdir -p ${root}/nope`),
    );
    await Deno.writeTextFile(`${root}/file`, "x");
    assert.match(await refusal(`${root}/file`, []), /not a directory/);
    await Deno.symlink(`${root}/work`, `${root}/link`);
    assert.match(
      await refusal(`${root}/link`, []),
      new RegExp(`symlink \\(to ${root}/work\\).*--workspace ${root}/work`),
    );
    await Deno.symlink(`${root}/gone`, `${root}/dangling`);
    assert.match(await refusal(`${root}/dangling`, []), /symlink \(to a missing target\)/);
  });
});

Deno.test("validateWorkspace() refuses overlap with a protected root in both directions", async () => {
  await withTree(async (root) => {
    const roots = [`${root}/home`, `${root}/install`];
    await Deno.mkdir(`${root}/home/ws`);
    assert.match(
      await refusal(`${root}/home/ws`, roots),
      new RegExp(`inside odek's protected directory ${root}/home`),
    );
    assert.match(await refusal(`${root}/home`, roots), /inside odek's protected directory/);
    assert.match(
      await refusal(root, roots),
      new RegExp(`contains odek's protected directory ${root}/home`),
    );
    assert.match(await refusal(`${root}/install`, roots), /protected directory .*install/);
  });
});

Deno.test("validateWorkspace() resolves links on both sides before comparing", async (t) => {
  await withTree(async (root) => {
    await Deno.mkdir(`${root}/home/ws`);
    await t.step("a protected root given through a symlink", async () => {
      await Deno.symlink(`${root}/home`, `${root}/home-link`);
      const message = await refusal(`${root}/home/ws`, [`${root}/home-link`]);
      assert.match(message, new RegExp(`${root}/home-link \\(resolved: ${root}/home\\)`));
    });
    await t.step("a workspace reached through a symlinked ancestor", async () => {
      await Deno.symlink(`${root}/home`, `${root}/innocent`);
      await refusal(`${root}/innocent/ws`, [`${root}/home`]);
    });
    await t.step(
      "a protected root that does not exist yet, under a symlinked ancestor",
      async () => {
        await Deno.symlink(`${root}/work`, `${root}/work-link`);
        const message = await refusal(`${root}/work`, [`${root}/work-link/future-home`]);
        assert.match(message, new RegExp(`contains .*resolved: ${root}/work/future-home`));
      },
    );
  });
});

Deno.test("validateWorkspace() compares whole path segments", async () => {
  await withTree(async (root) => {
    await Deno.mkdir(`${root}/a/b`, { recursive: true });
    await Deno.mkdir(`${root}/a/bc`);
    assert.equal(
      await validateWorkspace(`${root}/a/bc`, { protectedRoots: [`${root}/a/b`] }),
      `${root}/a/bc`,
    );
  });
});

Deno.test("validateWorkspace() with requirePrivate refuses a directory others can reach", async () => {
  await withTree(async (root) => {
    await Deno.chmod(`${root}/work`, 0o755);
    assert.match(await refusal(`${root}/work`, [], true), /mode is 0755, not 0700.*chmod 700/);
    await Deno.chmod(`${root}/work`, 0o700);
    assert.equal(
      await validateWorkspace(`${root}/work`, { protectedRoots: [], requirePrivate: true }),
      `${root}/work`,
    );
  });
});

Deno.test("isInside() is segment-aware", async (t) => {
  const cases: [string, string, boolean][] = [
    ["/a/b", "/a/b", true],
    ["/a/b/c", "/a/b", true],
    ["/a/b/", "/a/b", true],
    ["/a/b/../b/c", "/a/b", true],
    ["/a/bc", "/a/b", false],
    ["/a", "/a/b", false],
    ["/a/b/../c", "/a/b", false],
    ["/anything", "/", true],
    ["/a/..b", "/a", true],
  ];
  for (const [child, parent, want] of cases) {
    await t.step(
      `${child} in ${parent}: ${want}`,
      () => assert.equal(isInside(child, parent), want),
    );
  }
});
