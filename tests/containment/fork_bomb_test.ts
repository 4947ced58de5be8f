import assert from "node:assert/strict";
import { findPidsCgroup } from "../../src/broker/find_pids_cgroup.ts";
import { SWEEP_AT } from "../../src/broker/render_sandbox.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { FIXTURE_MAX_PROCESSES, makeContainmentFixture } from "./_fixture.ts";

const probe = await findPidsCgroup();
const NAME =
  "a fork bomb in a shell sandbox stays under its pids limit and the host can still spawn";

if (probe.type === "cgroup") {
  sandboxTest(NAME, async () => {
    await using f = await makeContainmentFixture();
    assert.equal(f.context.pidsCgroup, probe.dir);
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.ws),
      trustLevel: "standard",
    });
    // Sample every per-sandbox group under odek's pids cgroup while the bomb runs (from bash:
    // Deno refuses /sys without --allow-all).
    const sampler = new Deno.Command("bash", {
      args: [
        "-c",
        'while :; do for d in "$1"/s[0-9]*; do echo "${d##*/} $(cat $d/pids.current $d/pids.max 2>/dev/null | tr "\\n" " ")"; done; sleep 0.02; done',
        "sample",
        probe.dir,
      ],
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const samples = new Response(sampler.stdout).text();
    try {
      const result = await broker.run({
        id: "bomb",
        name: "shell",
        args: {
          command:
            "for f in /sys/fs/cgroup/pids/s*/pids.max /sys/fs/cgroup/pids/*/s*/pids.max; do echo max > $f; done 2>/dev/null; :(){ :|:& };:; sleep 2",
          timeout_seconds: 3,
        },
        verdict: {
          parts: [{ riskClass: "read", subject: "bomb", targets: [] }],
          decision: "allow",
          reason: "forced",
        },
      });
      const text = result.ok ? result.output : result.error.message;
      assert.match(text, /fork: (retry: )?Resource temporarily unavailable/, "no fork was refused");
    } finally {
      sampler.kill("SIGKILL");
      await sampler.status;
      await broker.close();
    }
    const groups = new Set<string>();
    const limits = new Set<string>();
    let peak = 0;
    for (const line of (await samples).split("\n")) {
      const [group, current, max] = line.trim().split(/\s+/);
      if (!group || current === undefined || max === undefined) continue;
      groups.add(group);
      // Other odek processes on this machine may have groups here too: only ours is capped at
      // FIXTURE_MAX_PROCESSES, so judge the groups that ever showed that cap or none at all.
      limits.add(max);
      if (max === String(FIXTURE_MAX_PROCESSES) || max === "max") {
        peak = Math.max(peak, Number(current));
      }
    }
    // Other odek processes on this machine may have groups here too; only ours ran a bomb.
    assert.ok(peak > FIXTURE_MAX_PROCESSES / 2, `the bomb never grew (peak ${peak})`);
    assert.ok(peak <= FIXTURE_MAX_PROCESSES, `peak ${peak} > ${FIXTURE_MAX_PROCESSES}`);
    assert.ok(!limits.has("max"), "a sandbox group without a limit (or one raised to max)");
    const spawned = await new Deno.Command("true").output();
    assert.equal(spawned.code, 0, "the host can still spawn processes");
  });
  // Each launcher sweeps the empty groups of ended sandboxes: it must not take the fresh, still
  // empty group of a launcher starting beside it (CI's parallel suite saw exit 125, "cannot limit
  // the sandbox", three times in a row for one call).
  sandboxTest(
    "sandboxes started together each get their own pids group, none refused",
    async () => {
      await using f = await makeContainmentFixture();
      const broker = new SandboxBroker({
        context: f.context,
        resolveWorkspace: () => Promise.resolve(f.ws),
        trustLevel: "standard",
      });
      try {
        for (let round = 0; round < 3; round++) {
          const results = await Promise.all(Array.from({ length: 16 }, (_, i) =>
            broker.run({
              id: `c${round}-${i}`,
              name: "shell",
              args: { command: "grep pids /proc/self/cgroup; echo ran" },
              verdict: {
                parts: [{ riskClass: "read", subject: "cat", targets: [] }],
                decision: "allow",
                reason: "forced",
              },
            })));
          for (const result of results) {
            assert.ok(result.ok, result.ok ? "" : result.error.message);
            assert.match(result.output, /ran/, result.output);
          }
        }
      } finally {
        await broker.close();
      }
    },
  );
  // A launcher removes the groups of ended sandboxes once there are SWEEP_AT of them, with one
  // rmdir (one per sandbox cost ~1 ms of CPU per shell call): they must still go.
  sandboxTest("the pids groups of ended sandboxes are removed", async () => {
    await using f = await makeContainmentFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.ws),
      trustLevel: "standard",
    });
    // Each group as "<name> <ended>" (from bash: Deno refuses /sys and /proc without --allow-all).
    const groups = async () => {
      const { stdout } = await new Deno.Command("bash", {
        args: [
          "-c",
          'for d in "$1"/s[0-9]*; do [ -d "$d" ] || continue; g=${d##*/}; [ -d /proc/${g#s} ] && echo "$g 0" || echo "$g 1"; done',
          "ls",
          probe.dir,
        ],
        stdout: "piped",
        stderr: "null",
      }).output();
      const lines = new TextDecoder().decode(stdout).split("\n").filter((l) => l !== "");
      return lines.map((l) => l.split(" ")).map(([name, ended]) => ({
        name,
        ended: ended === "1",
      }));
    };
    const shell = (id: string) =>
      broker.run({ id, name: "shell", args: { command: "true" } }).then((result) => {
        assert.ok(result.ok, result.ok ? "" : result.error.message);
      });
    try {
      const before = new Set((await groups()).map((g) => g.name));
      const ours = new Set<string>(); // groups of this test's ended sandboxes, as each ends
      for (let i = 0; i < SWEEP_AT + 2; i++) {
        await shell(`c${i}`);
        for (const g of await groups()) if (g.ended && !before.has(g.name)) ours.add(g.name);
      }
      assert.ok(ours.size > 0, "no group of an ended sandbox was seen");
      const deadline = Date.now() + 20_000;
      let left = [...ours];
      for (let i = 0; left.length > 0 && Date.now() < deadline; i++) {
        await shell(`sweep${i}`); // its launcher sees them ended and removes them
        const now = new Set((await groups()).map((g) => g.name));
        left = [...ours].filter((g) => now.has(g));
      }
      assert.deepEqual(left, [], "groups of ended sandboxes were left");
    } finally {
      await broker.close();
    }
  });
} else {
  console.error(`skipping "${NAME}": ${probe.reason} (no fork bomb runs without a limit)`);
  Deno.test({ name: NAME, ignore: true, fn() {} });
}
