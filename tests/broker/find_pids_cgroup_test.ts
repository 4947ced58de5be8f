import assert from "node:assert/strict";
import { findPidsCgroup } from "../../src/broker/find_pids_cgroup.ts";

Deno.test("findPidsCgroup() names a writable pids cgroup, or says why there is none", async () => {
  const probe = await findPidsCgroup();
  if (probe.type === "unavailable") {
    assert.match(probe.reason, /cgroup/);
    console.error(`no pids cgroup on this machine: ${probe.reason}`);
    return;
  }
  assert.match(probe.dir, /^\/sys\/fs\/cgroup\//);
  // Deno refuses /sys without --allow-all: bash checks the group and that the probe cleaned up.
  const { code } = await new Deno.Command("bash", {
    args: [
      "-c",
      'test -f "$1/pids.max" -o "$2" = 1 && ! ls -d "$1"/odek-probe-* 2>/dev/null',
      "x",
      probe.dir,
      String(probe.version),
    ],
  }).output();
  assert.equal(code, 0, `${probe.dir} has no pids.max, or a probe group was left behind`);
});
