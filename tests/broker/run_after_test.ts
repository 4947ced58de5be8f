/**
 * `SandboxBroker.runAfter`: a call is admitted and its sandbox readied while the journal's
 * `tool_started` is written, and it acts only once that write is done (design §8.3); when the
 * write fails, it never acts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

function output(result: ToolResult): string {
  assert.ok(result.ok, result.ok ? "" : result.error.message);
  return result.output;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `ready` that notes, the first time the broker waits on it, whether `marker` exists then,
 * and then resolves (or rejects with `failure`).
 */
function watchedReady(marker: string, failure?: Error) {
  const seen: { waited: boolean; markerThen?: boolean } = { waited: false };
  const settled = failure ? Promise.reject(failure) : Promise.resolve();
  settled.catch(() => {}); // observed through `then` below
  const ready = {
    then(onFulfilled: (value: unknown) => unknown, onRejected: (reason: unknown) => unknown) {
      if (!seen.waited) {
        seen.waited = true;
        seen.markerThen = exists(marker);
      }
      return settled.then(onFulfilled, onRejected);
    },
  } as unknown as Promise<void>;
  return { ready, seen };
}

sandboxTest("SandboxBroker.runAfter starts the command only once ready resolves", async () => {
  await using f = await makeSandboxFixture();
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel: "standard",
  });
  try {
    for (const [id, fromSpare] of [["c1", false], ["c2", true]] as const) {
      // c1 starts its sandbox on demand; c2 takes the spare c1 left.
      const marker = join(f.workspace, `marker-${id}`);
      const { ready, seen } = watchedReady(marker);
      const result = await broker.runAfter(
        { id, name: "shell", args: { command: `echo ran > marker-${id}` } },
        ready,
      );
      output(result);
      assert.ok(seen.waited, `${id} waited for ready (spare: ${fromSpare})`);
      assert.equal(seen.markerThen, false, `${id} had not run when it waited`);
      assert.equal(await Deno.readTextFile(marker), "ran\n");
    }
  } finally {
    await broker.close();
  }
});

sandboxTest("SandboxBroker.runAfter runs nothing when ready rejects", async () => {
  await using f = await makeSandboxFixture();
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel: "standard",
  });
  try {
    output(await broker.run({ id: "c0", name: "shell", args: { command: "true" } }));
    const failure = new Error("the journal cannot be written");
    for (
      const [id, call] of [
        ["c1", { name: "shell", args: { command: "echo ran > marker-c1" } }],
        ["c2", { name: "write_file", args: { path: "marker-c2", content: "ran\n" } }],
      ] as const
    ) {
      const marker = join(f.workspace, `marker-${id}`);
      const { ready } = watchedReady(marker, failure);
      await assert.rejects(broker.runAfter({ id, ...call }, ready), (error) => error === failure);
      assert.equal(exists(marker), false, `${id} (${call.name}) never ran`);
    }
    // The broker goes on: the next call runs (in a fresh sandbox).
    assert.match(
      output(await broker.run({ id: "c3", name: "shell", args: { command: "echo next" } })),
      /stdout:\nnext\n/,
    );
  } finally {
    await broker.close();
  }
});
