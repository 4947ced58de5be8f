/**
 * A run on a git repository that pauses for an approval: its workflow ends with the checkpoint of
 * its completed step on the run branch; the answer's continuation (`<run>:<approval id>`, another
 * workflow, another scratch folder) restores the workspace from that branch and goes on pushing to
 * it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { branchLog, fileAt, git, gitMissing } from "./_git_repository.ts";
import { durableFixture, postgresMissing, taskOf, waitFor } from "./_durable_fixture.ts";

// The runs are on a local bare repository: they need git too.
const missing = postgresMissing() ?? gitMissing();
if (missing) console.log(`durable git approval test skipped: ${missing}`);

Deno.test({
  name:
    "durable git runs: a run paused for approval keeps its branch; the continuation restores the workspace from it",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // The first call writes in the workspace; the second writes next to it (the verdict asks);
    // the third, after the answer, reads the first call's file (so it must have been restored).
    await using fx = await durableFixture(
      () => "echo one > first.txt",
      (_task, done) =>
        done === 1
          ? "echo yes > ../outside.txt"
          : done === 2
          ? "cat first.txt > after.txt"
          : undefined,
    );
    const repository = await fx.repository("app", { "README.md": "base\n" });
    const base = (await git(["--git-dir", repository, "rev-parse", "main"], fx.root)).trim();
    const scratch = join(fx.root, "scratch");
    await Deno.mkdir(scratch, { mode: 0o700 });
    fx.worker("solo", ["--concurrency", "1", "--git-scratch", scratch]);
    await fx.queue.enqueue({
      runId: "run-ask",
      sessionId: "s-ask",
      task: "task ask",
      git: { repository, ref: "main" },
    });
    const paused = await waitFor("the approval pause", async () => {
      const status = await fx.queue.status("run-ask");
      return status?.state === "awaiting_approval" ? status : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}\n${fx.logs.join("")}`);
    });
    assert.equal(paused.result?.approval?.id, "call-ask-1");
    assert.equal(paused.result?.git?.branch, "odek/run/run-ask");
    assert.equal(paused.result?.git?.checkpoints, 1);
    assert.deepEqual(paused.result?.git?.files, [{ path: "first.txt", change: "added" }]);
    // The paused run's scratch folder goes when its workflow ends; its step is on the branch.
    await waitFor(
      "the scratch folder to go",
      () => Promise.resolve([...Deno.readDirSync(scratch)].length === 0 ? true : undefined),
    );
    assert.equal(await fileAt(repository, "odek/run/run-ask", "first.txt"), "one\n");

    const next = await fx.queue.answer("run-ask", [{ callId: "call-ask-1", approved: true }]);
    assert.equal(next, "run-ask:call-ask-1");
    const resumed = await fx.queue.wait(next);
    assert.equal(resumed.outcome, "completed", JSON.stringify(resumed) + fx.logs.join(""));
    assert.equal(resumed.git?.branch, "odek/run/run-ask");
    assert.equal(resumed.git?.base, base);
    const log = await branchLog(repository, "odek/run/run-ask", base);
    assert.deepEqual(log.map((c) => c.subject), [
      "odek checkpoint: after shell (call-ask)",
      "odek checkpoint: after shell (call-ask-2)",
    ]);
    assert.equal(await fileAt(repository, "odek/run/run-ask", "after.txt"), "one\n");
    assert.equal(resumed.git?.head, log[1].id);
    assert.deepEqual(resumed.git?.files, [
      { path: "after.txt", change: "added" },
      { path: "first.txt", change: "added" },
    ]);
    // A repository the worker cannot read: the run fails saying so, and its row says failed.
    await fx.queue.enqueue({
      runId: "run-missing",
      sessionId: "s-missing",
      task: "task missing",
      git: { repository: join(fx.root, "no-such.git"), ref: "main" },
    });
    const failed = await fx.queue.wait("run-missing");
    assert.equal(failed.outcome, "failed");
    assert.match(failed.text, /odek could not list .*no-such\.git/);
    assert.equal((await fx.queue.status("run-missing"))?.state, "failed");
    // Nothing repeated: one model request per turn.
    assert.deepEqual(
      fx.model.requests.filter((r) => taskOf(r) === "ask").map((r) =>
        (r.body.messages as { role: string }[]).filter((m) => m.role === "tool").length
      ),
      [0, 1, 2, 3],
    );
  },
});
