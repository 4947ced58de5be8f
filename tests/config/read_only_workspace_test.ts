import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { readOnlyWorkspace } from "../../src/config/read_only_workspace.ts";
import { toChildError } from "../../tools/_catalogue/tool_failure.ts";
import { bwrap, sandboxTest } from "../_helpers/sandbox.ts";

const MODULE = fileURLToPath(new URL("../../src/config/read_only_workspace.ts", import.meta.url));

Deno.test("readOnlyWorkspace() says nothing for a writable workspace and leaves nothing in it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(await readOnlyWorkspace(dir), null);
    assert.deepEqual(await Array.fromAsync(Deno.readDir(dir)), []);
  } finally {
    await Deno.remove(dir);
  }
});

sandboxTest("readOnlyWorkspace() names a workspace on a read-only file system", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  try {
    // The workspace read-only in a mount namespace of its own: the check runs there.
    const script = `import { readOnlyWorkspace } from ${
      JSON.stringify(MODULE)
    }; console.log(await readOnlyWorkspace(${JSON.stringify(dir)}));`;
    const { stdout, code, stderr } = await new Deno.Command(bwrap!, {
      args: [
        "--die-with-parent",
        "--unshare-all",
        "--bind",
        "/",
        "/",
        "--ro-bind",
        dir,
        dir,
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--",
        Deno.execPath(),
        "eval",
        "--no-config",
        script,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.match(new TextDecoder().decode(stdout), /is on a read-only file system: every write/);
  } finally {
    await Deno.remove(dir);
  }
});

Deno.test("a write the file system refuses says read-only file system, not the call's scope", () => {
  const error = Object.assign(
    new Error("Read-only file system (os error 30): open '/srv/ws/notes.txt'"),
    { code: "EROFS" },
  );
  const child = toChildError("write_file", error);
  assert.equal(child.kind, "denied");
  assert.equal(child.message, "write_file failed: read-only file system: /srv/ws/notes.txt");
  assert.doesNotMatch(child.message, /scope/);
});
