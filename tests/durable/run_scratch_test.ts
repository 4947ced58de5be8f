/**
 * A run's scratch folder is held by one execution on a machine at a time: a second execution of
 * the same run (a stalled worker's run taken over on the same host) waits for the first before it
 * empties the folder, and a killed holder's lock is freed by its exit.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runScratch } from "../../src/durable/_run_scratch.ts";

/** Resolves when `promise` does, rejects after `ms` naming what was awaited. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("run scratch: a second execution of a run waits for the first before emptying its folder", async () => {
  const root = join(await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-scratch-" })), "s");
  try {
    const first = await runScratch(root, "r1");
    await Deno.writeTextFile(join(first.path, "work.txt"), "in use\n");
    const told = Promise.withResolvers<string>();
    const second = runScratch(root, "r1", told.resolve);
    const line = await within(told.promise, 10_000, "the second execution's notice");
    assert.match(line, /another execution of this run on this machine holds/);
    // The first execution's folder is untouched while it holds it.
    assert.equal(await Deno.readTextFile(join(first.path, "work.txt")), "in use\n");
    // Another run is not held up by it.
    const other = await within(runScratch(root, "r2"), 10_000, "another run's scratch");
    await other.release();
    await first.release();
    const taken = await within(second, 10_000, "the second execution's scratch");
    assert.equal(taken.path, first.path);
    assert.deepEqual([...Deno.readDirSync(taken.path)], []);
    await taken.release();
    await taken.release();
    assert.equal(await exists(taken.path), false);
    assert.deepEqual([...Deno.readDirSync(root)], []);
  } finally {
    await Deno.remove(join(root, ".."), { recursive: true });
  }
});

Deno.test("run scratch: the lock of an execution that was killed is freed by its exit", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-scratch-kill-" }));
  const root = join(dir, "s");
  const holder = join(dir, "holder.ts");
  const module = new URL("../../src/durable/_run_scratch.ts", import.meta.url).href;
  await Deno.writeTextFile(
    holder,
    `import { runScratch } from ${JSON.stringify(module)};\n` +
      `const s = await runScratch(Deno.args[0], "r1");\n` +
      `await Deno.writeTextFile(s.path + "/held", "");\n` +
      `console.log("held");\n` +
      `setInterval(() => {}, 1000);\n`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-sys=uid", holder, root],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const first = await within(reader.read(), 20_000, "the holder's lock");
    assert.match(first.value ?? "", /held/);
    const told = Promise.withResolvers<string>();
    const waiting = runScratch(root, "r1", told.resolve);
    await within(told.promise, 10_000, "the notice that the holder has it");
    child.kill("SIGKILL");
    await child.status;
    const taken = await within(waiting, 10_000, "the lock after the holder's death");
    assert.deepEqual([...Deno.readDirSync(taken.path)], []);
    await taken.release();
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
    await Deno.remove(dir, { recursive: true });
  }
});
