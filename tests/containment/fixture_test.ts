import assert from "node:assert/strict";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { makeContainmentFixture } from "./_fixture.ts";

const isRoot = (() => {
  try {
    return Deno.uid() === 0;
  } catch {
    return false;
  }
})();
const rootHomeExists = (() => {
  try {
    return Deno.lstatSync("/root").isDirectory;
  } catch {
    return false;
  }
})();

// The failing input: a machine whose real HOME is /root. The fixture replaced HOME after the
// root secrets were computed against the real one, so /root (and its .bash_history) stayed
// visible to root sandboxes and two containment steps failed.
sandboxTest(
  "the containment fixture hides /root from root sandboxes whatever the real HOME is",
  async () => {
    if (!isRoot || !rootHomeExists) {
      console.error("skipping: only a root odek hides /root (this test runs as another user)");
      return;
    }
    await using f = await makeContainmentFixture();
    assert.notEqual(f.context.home, "/root");
    assert.ok(f.context.hiddenPaths?.dirs.includes("/root"), JSON.stringify(f.context.hiddenPaths));
  },
);

Deno.test("sandboxContextFromEnvironment() finds the root secrets against the HOME it is given", async (t) => {
  if (!isRoot || !rootHomeExists) {
    console.error("skipping: only a root odek hides /root (this test runs as another user)");
    return;
  }
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    const options = { odekHome: `${dir}/odek`, installDir: dir, mode: "bwrap" as const };
    await t.step("another home: /root is a secret", async () => {
      const context = await sandboxContextFromEnvironment({ ...options, env: { HOME: dir } });
      assert.equal(context.home, dir);
      assert.ok(context.hiddenPaths?.dirs.includes("/root"));
    });
    await t.step("/root as the home: replaced by the home's tmpfs, not hidden twice", async () => {
      const context = await sandboxContextFromEnvironment({ ...options, env: { HOME: "/root" } });
      assert.ok(!context.hiddenPaths?.dirs.includes("/root"));
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
