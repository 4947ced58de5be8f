import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { processesAppear, processesWith, survivorsOf } from "./_processes.ts";

/** The word that marks a spare sandbox's command line (see `_sandbox_standby.ts`). */
const STANDBY = "odek-standby";

/**
 * This broker's spares, once their bwrap has exec'd (a fresh spawn may not have yet): the spare's
 * bwrap carries the marker word and this test's own workspace, so spares of other tests running
 * on this machine at the same time are never counted.
 */
async function sparesRunning(workspace: string): Promise<number> {
  return (await processesAppear(STANDBY, workspace)).length;
}

function output(result: ToolResult): string {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.output;
}

sandboxTest(
  "SandboxBroker keeps one spare sandbox per scope, and every command still gets a fresh one",
  async () => {
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    const shell = (id: string, command: string) =>
      broker.run({ id, name: "shell", args: { command } });
    try {
      broker.prepare(); // the loop calls this while it waits for the model
      assert.equal(
        processesWith(STANDBY, f.workspace).length,
        0,
        "no spare for a scope no command used yet",
      );
      assert.match(
        output(await shell("c1", "echo first > /dev/shm/scratch && cat /dev/shm/scratch")),
        /stdout:\nfirst\n/,
      );
      // Spares of the scope were started while c1 ran (the spawn overlaps the command); bwrap,
      // its init and the waiting bash all carry the marker.
      assert.ok(await sparesRunning(f.workspace) > 0, "a spare waits for the next command");
      // The next command runs in the spare: a sandbox of its own, so /dev/shm is empty again.
      const second = await shell("c2", "ls -A /dev/shm; echo done");
      assert.match(output(second), /stdout:\ndone\n/);
      assert.ok(await sparesRunning(f.workspace) > 0, "the spares were topped up");
      broker.prepare();
      assert.match(output(await shell("c3", "echo third")), /stdout:\nthird\n/);
    } finally {
      await broker.close();
    }
    assert.deepEqual(
      await survivorsOf(STANDBY, f.workspace),
      [],
      "close() leaves no spare running",
    );
  },
);

sandboxTest(
  "SandboxBroker never runs a command in a spare that mounted a replaced workspace",
  async () => {
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      output(await broker.run({ id: "c1", name: "shell", args: { command: "true" } }));
      broker.prepare();
      assert.ok(await sparesRunning(f.workspace) > 0, "a spare mounted the original workspace");
      // Swap the workspace for a new directory at the same path while the spare waits.
      await Deno.rename(f.workspace, `${f.workspace}.old`);
      await Deno.mkdir(f.workspace);
      output(
        await broker.run({ id: "c2", name: "shell", args: { command: "echo here > marker" } }),
      );
      assert.equal(await Deno.readTextFile(join(f.workspace, "marker")), "here\n");
      await assert.rejects(Deno.stat(join(`${f.workspace}.old`, "marker")), Deno.errors.NotFound);
    } finally {
      await broker.close();
      await Deno.remove(`${f.workspace}.old`, { recursive: true });
    }
  },
);

/**
 * What a command's shell holds: its variable names (PIPESTATUS aside: any shell that ran a
 * command before has it) and functions, and whether the launcher's own variables are left.
 */
const SHELL_PROBE = [
  "compgen -v | grep -vx PIPESTATUS",
  "compgen -A function",
  'echo "launcher: [${c-}${t-}${p-}]"',
  'echo "name and arguments: $0 $# $*"',
].join("; ");

sandboxTest(
  "A command in a spare runs in a shell like a fresh bash -c: same variables, no launcher state, same exit status",
  async () => {
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      // The baseline is a true `bash -c <command>` in the same kind of sandbox: a background job
      // (no launcher). Every shell call goes through the spare's launcher, the first one too
      // (started on demand), so comparing two shell calls compared the launcher with itself.
      const exec = {
        parts: [{ riskClass: "code_execution" as const, subject: "probe", targets: [] }],
        decision: "allow" as const,
        reason: "",
      };
      output(
        await broker.run({
          id: "b1",
          name: "bg_start",
          args: { command: SHELL_PROBE },
          verdict: exec,
        }),
      );
      const deadline = Date.now() + 10_000;
      while (
        !/exited/.test(
          output(await broker.run({ id: "b2", name: "bg_status", args: { id: "bg1" } })),
        )
      ) {
        assert.ok(Date.now() < deadline, "the baseline job did not end in 10 s");
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const fresh = output(await broker.run({ id: "b3", name: "bg_output", args: { id: "bg1" } }));
      // The first shell command of a scope starts its sandbox on demand; the next one takes a spare.
      output(await broker.run({ id: "c1", name: "shell", args: { command: SHELL_PROBE } }));
      assert.ok(await sparesRunning(f.workspace) > 0, "a spare waits for the next command");
      const spared = output(
        await broker.run({ id: "c2", name: "shell", args: { command: SHELL_PROBE } }),
      );
      const body = (text: string) => text.slice(text.indexOf("stdout:"));
      assert.match(spared, /launcher: \[\]/);
      assert.equal(body(spared), body(fresh));
      for (const [id, command, code] of [["c3", "exit 7", 7], ["c4", "echo (", 2]] as const) {
        const failed = await broker.run({ id, name: "shell", args: { command } });
        assert.ok(!failed.ok && failed.error.kind === "failed", JSON.stringify(failed));
        assert.match(failed.error.message, new RegExp(`^exit code ${code} `));
      }
    } finally {
      await broker.close();
    }
  },
);
