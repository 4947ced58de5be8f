import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { processesWith } from "./_processes.ts";

/**
 * This test's spares: processes carrying the standby marker and its own workspace (other odeks on
 * the machine may have spares of their own).
 */
let ownWorkspace = "";
function spares(): number[] {
  const own = new Set(processesWith(ownWorkspace));
  return processesWith("odek-standby").filter((pid) => own.has(pid));
}

/** Spares that carry the marker, once their bwrap has exec'd (a fresh spawn may not have yet). */
async function sparesRunning(): Promise<number> {
  for (let i = 0; i < 40 && spares().length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return spares().length;
}

function output(result: ToolResult): string {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.output;
}

sandboxTest(
  "SandboxBroker keeps one spare sandbox per scope, and every command still gets a fresh one",
  async () => {
    await using f = await makeSandboxFixture();
    ownWorkspace = f.workspace;
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    const shell = (id: string, command: string) =>
      broker.run({ id, name: "shell", args: { command } });
    try {
      assert.match(
        output(await shell("c1", "echo first > /tmp/scratch && cat /tmp/scratch")),
        /stdout:\nfirst\n/,
      );
      assert.equal(spares().length, 0, "no spare before prepare()");
      broker.prepare(); // the loop calls this while it waits for the model
      // bwrap, its init and the waiting bash all carry the marker.
      assert.ok(await sparesRunning() > 0, "a spare waits for the next command");
      // The next command runs in the spare: a sandbox of its own, so /tmp is empty again.
      const second = await shell("c2", "ls -A /tmp; echo done");
      assert.match(output(second), /stdout:\ndone\n/);
      broker.prepare();
      assert.ok(await sparesRunning() > 0, "the spares were topped up");
    } finally {
      await broker.close();
    }
    for (let i = 0; i < 100 && spares().length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(spares(), [], "close() leaves no spare running");
  },
);

sandboxTest(
  "SandboxBroker never runs a command in a spare that mounted a replaced workspace",
  async () => {
    await using f = await makeSandboxFixture();
    ownWorkspace = f.workspace;
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      output(await broker.run({ id: "c1", name: "shell", args: { command: "true" } }));
      broker.prepare();
      assert.ok(await sparesRunning() > 0, "a spare mounted the original workspace");
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
