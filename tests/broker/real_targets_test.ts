import assert from "node:assert/strict";
import { join } from "node:path";
import { derivePermissions } from "../../src/broker/derive_permissions.ts";
import { realTargets } from "../../src/broker/_real_targets.ts";
import type { Verdict } from "../../src/danger/verdict.ts";

const write = (...targets: string[]): Verdict => ({
  parts: [
    { riskClass: "system_write", subject: "echo x >> t", targets },
    { riskClass: "read", subject: "cat", targets: targets.slice(0, 1) },
  ],
  decision: "ask",
  reason: "writes outside the workspace",
});

Deno.test("realTargets() drops a target reached through a link a sandbox could have planted", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const [ws, odek, out] = ["ws", "odek", "out"].map((d) => join(root, d));
    for (const dir of [ws, odek, out]) await Deno.mkdir(dir);
    await Deno.writeTextFile(join(odek, "secret.txt"), "s");
    await Deno.symlink(odek, join(out, "odek_link"));
    await Deno.mkdir(join(out, "real"));
    await Deno.symlink(join(out, "real"), join(out, "plain_link"));
    const real = await realTargets(
      write(
        join(out, "odek_link", "secret.txt"),
        join(out, "odek_link", "new", "x"),
        join(out, "plain_link", "y"),
        "rel.txt",
      ),
      ws,
      { protectedRoots: [odek] },
    );
    // `out` contains no protected root, so some sandbox may write it: its links are not followed.
    assert.deepEqual(real.parts[0].targets, [join(ws, "rel.txt")]);
    assert.deepEqual(real.parts[1].targets, [join(out, "odek_link", "secret.txt")], "reads kept");
    const set = derivePermissions({ id: "c", name: "shell", args: {} }, real, "standard", {
      workspace: ws,
      protectedRoots: [odek],
    });
    assert.deepEqual(set.writePaths, [join(ws, "rel.txt")]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("realTargets() follows links no sandbox can write, then the protected roots still apply", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    // `home` contains ODEK_HOME, so no sandbox is ever granted it writable: its links are trusted.
    const [ws, home, dotfiles] = ["ws", "home", "dotfiles"].map((d) => join(root, d));
    const odek = join(home, ".odek");
    for (const dir of [ws, home, dotfiles, odek]) await Deno.mkdir(dir);
    await Deno.writeTextFile(join(dotfiles, "bashrc"), "");
    await Deno.symlink(join(dotfiles, "bashrc"), join(home, ".bashrc"));
    await Deno.symlink(odek, join(home, "odek_link"));
    const real = await realTargets(
      write(join(home, ".bashrc"), join(home, "odek_link", "config.json")),
      ws,
      { protectedRoots: [odek] },
    );
    assert.deepEqual(real.parts[0].targets, [
      join(dotfiles, "bashrc"),
      join(odek, "config.json"),
    ]);
    const set = derivePermissions({ id: "c", name: "shell", args: {} }, real, "standard", {
      workspace: ws,
      protectedRoots: [odek],
    });
    assert.deepEqual(set.writePaths, [join(dotfiles, "bashrc")], "ODEK_HOME is never granted");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("derivePermissions() never grants a target in /proc, /sys or /dev", () => {
  const set = derivePermissions(
    { id: "c", name: "shell", args: {} },
    write(
      "/proc/1/root/etc",
      "/proc/self/environ",
      "/sys/fs/cgroup/pids/pids.max",
      "/dev/sda",
      "/srv/x",
    ),
    "standard",
    { workspace: "/srv/ws", protectedRoots: [] },
  );
  assert.deepEqual(set.writePaths, ["/srv/x"]);
});
