/**
 * Checkpoint benchmarks (`deno task bench`). For workspaces of 100, 1 000 and 5 000 files (2 KiB
 * each, 50 to a folder) it prints:
 * - the first checkpoint (every file read, hashed and stored) — paid once per workspace;
 * - the cost one writing step adds: the hook's checkpoint before, one file changed by the step,
 *   the checkpoint after, the diff with its text for `files_changed`, and the two journal
 *   records — the median of 20 steps, measured through the run's own hook
 *   (`HostCheckpoints.forRun`) with an in-memory journal;
 * - restoring every file after an `rm -rf` of the whole workspace.
 *
 * @module
 */
import { join } from "node:path";
import { GitCheckpointStore } from "../src/checkpoint/git_checkpoint_store.ts";
import type { Step, StepRunner } from "../src/loop/step_runner.ts";
import { HostCheckpoints } from "../src/runtime/host_checkpoints.ts";
import { MemorySessionStore } from "../src/session/memory_session_store.ts";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const STEPS = 20;

async function bench(files: number): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-cp-bench-" }));
  try {
    const ws = join(root, "ws");
    const body = "x".repeat(2048);
    for (let i = 0; i < files; i++) {
      const dir = join(ws, `dir${Math.floor(i / 50)}`);
      if (i % 50 === 0) await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(join(dir, `file${i}.txt`), `${i}\n${body}\n`);
    }
    // A workspace at rest: the stat cache trusts only files unchanged for 2 s (Deno's ctime has
    // whole seconds), so wait that long, as a real workspace between edits would be.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await using store = await GitCheckpointStore.open({
      dir: join(root, "cp"),
      workspace: ws,
      sessionId: "bench",
    });
    let t0 = performance.now();
    const first = await store.record({ phase: "before", label: "first" });
    const firstMs = performance.now() - t0;

    const session = await new MemorySessionStore().create({
      workspace: ws,
      model: "m",
      baseUrl: "http://127.0.0.1:1/v1",
      title: "bench",
    });
    const hooks = new HostCheckpoints(store, session);
    let changed = 0;
    const inner: StepRunner = {
      run: async <T>(step: Step<T>) => {
        // The step: one file of the workspace changes.
        const i = (changed++ * 37) % files;
        await Deno.writeTextFile(
          join(ws, `dir${Math.floor(i / 50)}`, `file${i}.txt`),
          `${i} v${changed}\n`,
        );
        return await step.execute();
      },
    };
    let events = 0;
    const { runner } = hooks.forRun(inner, () => void events++);
    const steps: number[] = [];
    for (let s = 0; s < STEPS; s++) {
      t0 = performance.now();
      await runner.run({
        info: { type: "tool_call", iteration: s + 1, callId: `c${s}`, name: "shell", writes: true },
        execute: () => Promise.resolve(null),
        records: () => [],
      });
      steps.push(performance.now() - t0);
    }
    await session.close();
    if (events !== STEPS) throw new Error(`expected ${STEPS} files_changed events, got ${events}`);

    for await (const entry of Deno.readDir(ws)) {
      await Deno.remove(join(ws, entry.name), { recursive: true });
    }
    t0 = performance.now();
    const restored = await store.restore(first.id);
    const restoreMs = performance.now() - t0;
    if (restored.written.length !== files) throw new Error(`restored ${restored.written.length}`);
    console.log(
      `checkpoints, ${files} files: first ${
        fmt(firstMs)
      } · per writing step (before + after + diff + journal, median of ${STEPS}) ${
        fmt(median(steps))
      } [min ${fmt(Math.min(...steps))}, max ${fmt(Math.max(...steps))}] · restore after rm -rf ${
        fmt(restoreMs)
      }`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

for (const files of [100, 1000, 5000]) await bench(files);
