import assert from "node:assert/strict";
import { protectedRootsFor } from "../../src/runtime/compose.ts";
import { resolveOdekPaths } from "../../src/config/odek_paths.ts";

const paths = resolveOdekPaths({ HOME: "/home/ada" }, "/home/ada/code/odek");

Deno.test("protectedRootsFor() waives the install directory only for an explicit workspace at or inside it", async (t) => {
  const cases: [string, boolean, boolean][] = [
    // workspace, explicit, install dir protected
    ["/home/ada/code/odek", true, false],
    ["/home/ada/code/odek/src", true, false],
    ["/home/ada/code", true, true], // contains the install: stays protected, so it is refused
    ["/home/ada", true, true],
    ["/home/ada/code/odek", false, true], // a default never resolves to a protected root
    ["/home/ada/code/other", true, true],
    ["/home/ada/code/odek-fork", true, true],
  ];
  for (const [workspace, explicit, protectedInstall] of cases) {
    await t.step(`${workspace} (${explicit ? "explicit" : "default"})`, () => {
      const roots = protectedRootsFor(paths, workspace, explicit);
      assert.ok(roots.includes(paths.odekHome));
      assert.equal(roots.includes(paths.installDir), protectedInstall);
    });
  }
});
