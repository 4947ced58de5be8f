import assert from "node:assert/strict";
import { join } from "node:path";
import { BWRAP_INSTALL_COMMAND, findBwrap } from "../../src/broker/find_bwrap.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";

async function fakeBwrap(dir: string, script: string, mode = 0o755): Promise<void> {
  await Deno.writeTextFile(join(dir, "bwrap"), `#!/bin/sh\n${script}\n`);
  await Deno.chmod(join(dir, "bwrap"), mode);
}

Deno.test("findBwrap() returns null when no directory on the path has a working bwrap", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(await findBwrap({ path: dir }), null);
    await fakeBwrap(dir, "exit 1");
    assert.equal(await findBwrap({ path: dir }), null, "--version fails");
    await fakeBwrap(dir, "exit 0", 0o644);
    assert.equal(await findBwrap({ path: dir }), null, "not executable");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("findBwrap() returns the first bwrap whose --version succeeds", async () => {
  const broken = await Deno.makeTempDir();
  const working = await Deno.makeTempDir();
  try {
    await fakeBwrap(broken, "exit 1");
    await fakeBwrap(working, '[ "$1" = --version ] && echo "bubblewrap 9.9"');
    const found = await findBwrap({ path: ["relative/dir", broken, working].join(":") });
    assert.equal(found, join(working, "bwrap"));
  } finally {
    await Deno.remove(broken, { recursive: true });
    await Deno.remove(working, { recursive: true });
  }
});

Deno.test("BWRAP_INSTALL_COMMAND names the Debian package", () => {
  assert.equal(BWRAP_INSTALL_COMMAND, "apt-get install bubblewrap");
});

sandboxTest("findBwrap() finds the installed bwrap on PATH", async () => {
  const found = await findBwrap();
  assert.ok(found !== null && found.endsWith("/bwrap"));
});
