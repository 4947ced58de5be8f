/**
 * `RunRecords.save` and saves of one record that overlap: serve saves a run's record without
 * waiting (its host's late warnings, a queued run's reason) and again when the run ends. The
 * record on disk is the one saved last, whatever each write took: a restart resumes a run whose
 * record still says `running`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { RunRecords, type ServeRunRecord } from "../../src/serve/run_records.ts";

Deno.test("RunRecords.save: of two overlapping saves of a record, the later one is on disk", async () => {
  const dir = await Deno.makeTempDir();
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  const records = new RunRecords(dir);
  await records.open();
  const base: ServeRunRecord = {
    key: "r-1",
    sessionId: "s-1",
    state: "running",
    createdAt: "2026-01-01T00:00:00.000Z",
    workspace: "/w",
  };
  for (let round = 0; round < 5; round++) {
    // The late save holds more (a long warning) and is slower to write than the end's.
    const late = records.save({ ...base, warnings: ["w".repeat(16 * 1024 * 1024)] });
    const end = records.save({ ...base, state: "completed", summary: `done ${round}` });
    await Promise.all([late, end]);
    const onDisk = JSON.parse(await Deno.readTextFile(join(dir, "r-1.json")));
    assert.equal(onDisk.state, "completed", `round ${round}: an earlier save overwrote the end`);
    assert.equal(onDisk.summary, `done ${round}`);
  }
});

Deno.test("RunRecords.remove: a save still being written does not bring the removed record back", async () => {
  const dir = await Deno.makeTempDir();
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  const records = new RunRecords(dir);
  await records.open();
  // A queued run's new reason is saved without waiting; then the run starts under its own key
  // and the queued record is removed.
  const queued: ServeRunRecord = {
    key: "q-1",
    sessionId: "s-1",
    state: "queued",
    queuedReason: "r".repeat(16 * 1024 * 1024),
    createdAt: "2026-01-01T00:00:00.000Z",
    workspace: "/w",
  };
  const saving = records.save(queued);
  await records.remove("q-1");
  await saving;
  assert.deepEqual(
    (await records.all()).map((r) => r.key),
    [],
    "the queued record came back: a restart would queue the run again",
  );
});
