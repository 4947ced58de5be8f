import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { sandboxContextFromEnvironment } from "../../src/broker/sandbox_context.ts";

const NAMES = ["HOME", "DENO_DIR", "XDG_CACHE_HOME"] as const;

/** Run `fn` with some environment variables replaced (undefined: unset), then restore them. */
async function withEnv(
  values: Partial<Record<(typeof NAMES)[number], string | undefined>>,
  fn: () => Promise<void>,
): Promise<void> {
  const saved = NAMES.map((name) => [name, Deno.env.get(name)] as const);
  try {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
    await fn();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) Deno.env.delete(name);
      else Deno.env.set(name, value);
    }
  }
}

Deno.test("sandboxContextFromEnvironment() fills every path from the environment", async (t) => {
  const home = await Deno.realPath(await Deno.makeTempDir());
  try {
    const installDir = join(home, "install");
    await Deno.mkdir(installDir);
    const odekHome = join(home, ".odek"); // does not exist: not a protected root to mount over
    const denoPath = join(home, "deno");
    await Deno.writeTextFile(denoPath, "");
    const options = { odekHome, installDir, mode: "bwrap" as const, denoPath };
    await t.step("DENO_DIR wins", async () => {
      await withEnv(
        { HOME: home, DENO_DIR: "/opt/deno-cache", XDG_CACHE_HOME: "/xdg" },
        async () => {
          const context = await sandboxContextFromEnvironment(options);
          assert.equal(context.denoDir, "/opt/deno-cache");
          assert.equal(context.home, home);
          assert.equal(context.toolsDir, join(installDir, "tools"));
          assert.equal(context.denoPath, denoPath);
          assert.deepEqual(context.protectedRoots, [installDir]);
          assert.deepEqual(context.readOnlyHomeFiles, []);
          assert.equal(context.mode, "bwrap");
        },
      );
    });
    await t.step("then $XDG_CACHE_HOME/deno", async () => {
      await withEnv({ HOME: home, DENO_DIR: undefined, XDG_CACHE_HOME: "/xdg" }, async () => {
        assert.equal((await sandboxContextFromEnvironment(options)).denoDir, "/xdg/deno");
      });
    });
    await t.step("then ~/.cache/deno; ~/.gitconfig and ODEK_HOME once they exist", async () => {
      await Deno.writeTextFile(join(home, ".gitconfig"), "[user]\n");
      await Deno.mkdir(odekHome);
      await withEnv({ HOME: home, DENO_DIR: undefined, XDG_CACHE_HOME: undefined }, async () => {
        const context = await sandboxContextFromEnvironment(options);
        assert.equal(context.denoDir, join(home, ".cache", "deno"));
        assert.deepEqual(context.readOnlyHomeFiles, [join(home, ".gitconfig")]);
        assert.deepEqual(context.protectedRoots, [odekHome, installDir]);
      });
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("sandboxContextFromEnvironment() refuses a missing or relative HOME", async () => {
  for (const value of [undefined, "relative/home"]) {
    await withEnv({ HOME: value }, async () => {
      await assert.rejects(
        sandboxContextFromEnvironment({ odekHome: "/x", installDir: "/y", mode: "none" }),
        (e) => e instanceof OdekError && e.code === "CONFIG_INVALID",
      );
    });
  }
});
