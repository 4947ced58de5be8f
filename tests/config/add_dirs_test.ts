import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import { parseAddDir, validateAddDirs } from "../../src/config/add_dirs.ts";

async function rejection(promise: Promise<unknown>): Promise<OdekError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OdekError, String(error));
    return error;
  }
  assert.fail("expected a rejection");
}

/** A temp layout: a plain dir, a protected ODEK_HOME and a file. */
async function layout() {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-adddir-" }));
  const odekHome = join(root, "odek_home");
  await Deno.mkdir(join(root, "cache"));
  await Deno.mkdir(odekHome);
  await Deno.writeTextFile(join(root, "file.txt"), "x");
  return {
    root,
    odekHome,
    async [Symbol.asyncDispose]() {
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("parseAddDir() reads PATH, PATH:ro and PATH:rw, resolving relative paths against the caller's directory", () => {
  assert.deepEqual(parseAddDir("/srv/cache", "/ws"), { path: "/srv/cache", readOnly: false });
  assert.deepEqual(parseAddDir("/srv/cache:ro", "/ws"), { path: "/srv/cache", readOnly: true });
  assert.deepEqual(parseAddDir("/srv/cache:rw", "/ws"), { path: "/srv/cache", readOnly: false });
  assert.deepEqual(parseAddDir("../lib/", "/srv/ws"), { path: "/srv/lib", readOnly: false });
});

Deno.test("parseAddDir() refuses an empty path and a relative config entry", () => {
  assert.throws(() => parseAddDir(":ro", "/ws"), (e: OdekError) => e.code === "USAGE");
  assert.throws(
    () => parseAddDir("cache", undefined),
    (e: OdekError) => e.code === "CONFIG_INVALID" && /must be absolute/.test(e.message),
  );
});

Deno.test("validateAddDirs() returns real paths, merges duplicates (writable wins) and sorts", async () => {
  await using l = await layout();
  await Deno.symlink(join(l.root, "cache"), join(l.root, "alias"));
  const granted = await validateAddDirs([
    { path: join(l.root, "cache"), readOnly: true },
    { path: join(l.root, "cache/../cache"), readOnly: false },
  ], [l.odekHome]);
  assert.deepEqual(granted, [{ path: join(l.root, "cache"), readOnly: false }]);
});

Deno.test("validateAddDirs() refuses what the workspace rules refuse, naming the directory and the fix", async (t) => {
  await using l = await layout();
  await Deno.symlink(join(l.root, "cache"), join(l.root, "link"));
  // An alias of a directory that leads into ODEK_HOME: only the resolved spelling overlaps.
  await Deno.symlink(l.odekHome, join(l.root, "home_alias"));
  await Deno.mkdir(join(l.odekHome, "sub"));
  const cases: [string, string, RegExp][] = [
    ["missing", join(l.root, "nope"), /does not exist\. Create it with: mkdir -p .*nope/],
    ["a symlink", join(l.root, "link"), /is a symlink .*--add-dir .*cache/],
    ["a file", join(l.root, "file.txt"), /is not a directory/],
    ["ODEK_HOME itself", l.odekHome, /inside odek's protected directory/],
    ["inside ODEK_HOME", join(l.odekHome, "sub"), /inside odek's protected directory/],
    ["containing ODEK_HOME", l.root, /contains odek's protected directory/],
    [
      "inside ODEK_HOME through a linked parent",
      join(l.root, "home_alias", "sub"),
      /inside odek's protected directory/,
    ],
    ["the root directory", "/", /contains odek's protected directory/],
  ];
  for (const [name, path, message] of cases) {
    await t.step(name, async () => {
      const error = await rejection(validateAddDirs([{ path, readOnly: true }], [l.odekHome]));
      assert.equal(error.code, "WORKSPACE_INVALID");
      assert.match(error.message, /^Cannot use added directory /);
      assert.match(error.message, message);
    });
  }
});

Deno.test("validateAddDirs() refuses a directory whose real path holds a comma (the sandbox cannot mount it)", async () => {
  await using l = await layout();
  await Deno.mkdir(join(l.root, "a,b"));
  const error = await rejection(
    validateAddDirs([{ path: join(l.root, "a,b"), readOnly: false }], [l.odekHome]),
  );
  assert.match(error.message, /comma or a control character/);
});
