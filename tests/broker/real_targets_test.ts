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

Deno.test("realTargets() resolves granted targets so a link into a protected root is never bound", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  try {
    const [ws, odek, out] = ["ws", "odek", "out"].map((d) => join(root, d));
    for (const dir of [ws, odek, out]) await Deno.mkdir(dir);
    await Deno.writeTextFile(join(odek, "secret.txt"), "s");
    await Deno.symlink(odek, join(out, "odek_link"));
    const real = await realTargets(
      write(join(out, "odek_link", "secret.txt"), join(out, "odek_link", "new", "x"), "rel.txt"),
      ws,
    );
    assert.deepEqual(real.parts[0].targets, [
      join(odek, "secret.txt"),
      join(odek, "new", "x"),
      join(ws, "rel.txt"),
    ]);
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
