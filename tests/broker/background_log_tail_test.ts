// Found by the adversarial review: bg_output of a detached job read its whole log file into
// odek's own memory, every call; a job that writes gigabytes (`yes`) could exhaust odek. Only the
// tail is read now.
import assert from "node:assert/strict";
import { BackgroundJobs } from "../../src/broker/background_jobs.ts";

const MIB = 1024 * 1024;

Deno.test("BackgroundJobs.output() reads only the tail of a huge detached log", async () => {
  const ws = await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-bglog-" }));
  try {
    const jobs = new BackgroundJobs();
    const context = {
      mode: "none" as const,
      bwrapPath: null,
      denoPath: Deno.execPath(),
      denoDir: "/nonexistent",
      toolsDir: "/nonexistent",
      workspace: ws,
      home: ws,
      odekHome: ws,
      installDir: "/nonexistent",
      protectedRoots: [],
      readOnlyHomeFiles: [],
    };
    const set = {
      readPaths: [ws],
      writePaths: [ws],
      network: { type: "none" as const },
      runBinaries: [],
      envNames: [],
    };
    const job = await jobs.start("true", { set, context, detached: true });
    assert.ok(await jobs.wait(job.id, 10_000), "the job ended");
    const log = job.logFile!;
    // A sparse 512 MiB log (no disk, no memory) ending in a marker after a split "é".
    Deno.truncateSync(log, 512 * MIB);
    Deno.writeFileSync(log, new TextEncoder().encode("tail-marker é"), { append: true });
    const size = Deno.statSync(log).size;
    const before = Deno.memoryUsage().rss;
    const out = jobs.output(job.id, 13); // "ail-marker é" is 13 bytes; one more cuts "t"
    const grown = Deno.memoryUsage().rss - before;
    assert.equal(out.stdout.text, "ail-marker é");
    assert.equal(out.stdout.omittedBytes, size - 13);
    assert.ok(grown < 200 * MIB, `odek's memory grew by ${Math.round(grown / MIB)} MiB`);
    const cut = jobs.output(job.id, 1); // the last byte of "é" alone: dropped
    assert.deepEqual(cut.stdout, { text: "", omittedBytes: size });
    await jobs.close();
  } finally {
    await Deno.remove(ws, { recursive: true });
  }
});
