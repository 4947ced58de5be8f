/**
 * `odek run` when a part the host starts after the first request fails (docs/runtime.md, "What a
 * host starts later"): the request in flight is aborted, the run ends with exit code 1 and the
 * part's error, nothing ran, and the new session is removed with its task given back — as when
 * the open itself failed.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { odekFixture } from "./_odek.ts";

Deno.test("odek run: a checkpoint store that cannot open aborts the request in flight and ends the run with exit 1, nothing run or kept", async () => {
  await using fx = await odekFixture();
  // ODEK_HOME/checkpoints is a file: the store cannot open.
  await Deno.writeTextFile(join(fx.odekHome, "checkpoints"), "not a directory\n");
  await using server = await startFakeOpenAIServer({
    turns: [
      // A model far slower than the store's failure: the run must not wait for its answer.
      {
        toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "b.txt", content: "b\n" } }],
        delayMs: 60_000,
      },
      { text: "written" },
    ],
  });
  const run = await fx.run(["run", "--base-url", server.url, "--session", "parts", "write b"]);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /File exists \(os error 17\): mkdir '[^']*checkpoints'/, run.stderr);
  // The answer never arrived (the request was aborted), so the session holds nothing worth
  // keeping: removed, the task printed back.
  assert.match(run.stderr, /No model request of session parts succeeded/);
  assert.match(run.stderr, /your task was:\n\nwrite b\n/);
  await assert.rejects(Deno.stat(join(fx.workspace, "b.txt")), Deno.errors.NotFound);
  const list = await fx.run(["sessions", "list"]);
  assert.doesNotMatch(list.stdout, /\bparts\b/);
});
