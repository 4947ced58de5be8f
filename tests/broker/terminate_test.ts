import assert from "node:assert/strict";
import { runShell } from "../../src/broker/run_shell.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { processesWith, survivorsOf, uniqueSleep } from "./_processes.ts";

const set = (ws: string) => ({
  readPaths: [ws],
  writePaths: [ws],
  network: { type: "none" as const },
  runBinaries: [],
  envNames: [],
});

for (const mode of ["bwrap", "none"] as const) {
  const register = mode === "bwrap" ? sandboxTest : Deno.test;
  register(`runShell() (${mode}) sends SIGTERM on timeout, so a command can clean up`, async () => {
    await using f = await makeSandboxFixture({ mode });
    const result = await runShell(
      "trap 'echo got-term; exit 3' TERM; echo started; sleep 30 & wait",
      { set: set(f.workspace), context: f.context, timeoutMs: 1_000, killGraceMs: 5_000 },
    );
    assert.equal(result.ok ? "ok" : result.error.kind, "timeout");
    const text = result.ok ? "" : result.error.message;
    assert.match(text, /started\ngot-term/, text);
  });

  register(
    `runShell() (${mode}) SIGKILLs what ignores SIGTERM after the grace period`,
    async () => {
      await using f = await makeSandboxFixture({ mode });
      const marker = uniqueSleep();
      const abort = new AbortController();
      const pending = runShell(`trap '' TERM; echo started; ${marker}; echo survived`, {
        set: set(f.workspace),
        context: f.context,
        timeoutMs: 60_000,
        killGraceMs: 300,
        signal: abort.signal,
      });
      // Abort once the command runs (the marker is visible), not after a fixed delay.
      while (processesWith(marker).length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      abort.abort();
      const result = await pending;
      assert.equal(result.ok ? "ok" : result.error.kind, "interrupted");
      assert.doesNotMatch(result.ok ? "" : result.error.message, /survived/);
      assert.deepEqual(await survivorsOf(marker), [], "the TERM-ignoring process was SIGKILLed");
    },
  );
}

for (const mode of ["bwrap", "none"] as const) {
  const register = mode === "bwrap" ? sandboxTest : Deno.test;
  register(
    `runShell() (${mode}) runs each command in its own process group and session`,
    async () => {
      await using f = await makeSandboxFixture({ mode });
      // Fields 1, 5 and 6 of /proc/<pid>/stat: pid, process group, session (after "(comm)").
      const result = await runShell(
        'read -r s < /proc/$$/stat; set -- ${s##*) }; echo "pid=$$ pgrp=$3 sid=$4 core=$PPID"',
        { set: set(f.workspace), context: f.context, timeoutMs: 20_000 },
      );
      assert.ok(result.ok, result.ok ? "" : result.error.message);
      const m = result.output.match(/pid=(\d+) pgrp=(\d+) sid=(\d+)/);
      assert.ok(m, result.output);
      // Unsandboxed the command leads its group; in bwrap the sandbox's pid 1 (bwrap's init,
      // which called setsid) leads it, and only the sandbox's processes are in it.
      assert.equal(m[2], mode === "bwrap" ? "1" : m[1], "the command's own process group");
      assert.equal(m[3], m[2], "and its own session (no terminal of odek's to inject into)");
      const ownGroup = new Deno.Command("bash", {
        args: ["-c", "read -r s < /proc/$PPID/stat; set -- ${s##*) }; echo $3"],
        stdout: "piped",
      }).outputSync();
      assert.notEqual(new TextDecoder().decode(ownGroup.stdout).trim(), m[2]);
    },
  );
}
