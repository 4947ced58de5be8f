/**
 * The takeover case (test helper): runs on a git repository and ref over two workers, one killed
 * with SIGKILL in a tool call. Each run clones the repository into a scratch workspace of its
 * worker and pushes a checkpoint commit to its run branch after each completed writing step; the
 * run that was killed continues on the other worker from its branch's last checkpoint.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { processesWith, uniqueSleep } from "../broker/_processes.ts";
import { branchLog, fileAt, git } from "./_git_repository.ts";
import { durableFixture, taskOf, waitFor } from "./_durable_fixture.ts";

/** The small count of the main suite; tests/slow/ runs 20. */
export async function takeoverCase(runs: number): Promise<void> {
  const sleep = uniqueSleep();
  // The slow run: a first call writes first.txt (a completed step, checkpointed); the second
  // notes in started.txt that it started, then sleeps until its worker is killed; after the
  // takeover a third call copies first.txt (so it must have been restored) to after.txt. The
  // other runs write out.txt once.
  await using fx = await durableFixture(
    (task) => task === "slow" ? "echo one >> first.txt" : `echo ${task} > out.txt`,
    (task, done) =>
      task !== "slow"
        ? undefined
        : done === 1
        ? `echo started >> started.txt; ${sleep}`
        : done === 2
        ? "cat first.txt > after.txt"
        : undefined,
  );
  const repository = await fx.repository("app", { "README.md": "base\n" });
  const base = (await git(["--git-dir", repository, "rev-parse", "main"], fx.root)).trim();
  /** The slow run's started.txt in the workers' scratch workspaces. */
  const startedText = async () => {
    const texts: string[] = [];
    for await (const entry of Deno.readDir(scratch)) {
      const path = join(scratch, entry.name, "workspace", "started.txt");
      texts.push(await Deno.readTextFile(path).catch(() => ""));
    }
    return texts.join("");
  };
  // One scratch root for both workers (the same path on every worker, as on several machines).
  const scratch = join(fx.root, "scratch");
  Deno.mkdirSync(scratch, { mode: 0o700 });
  const a = fx.worker("worker-a", ["--lease", "5", "--git-scratch", scratch]);
  const b = fx.worker("worker-b", ["--lease", "5", "--git-scratch", scratch]);
  void b;
  const api = await fx.serve();
  const names = ["slow", ...Array.from({ length: runs - 1 }, (_, i) => `r${i}`)];
  const keys = new Map<string, string>();
  for (const name of names) {
    // Submitted over serve's REST API, which puts each run on the queue.
    const response = await api("/api/runs", {
      task: `task ${name}`,
      session_id: `s-${name}`,
      repository,
      ref: "main",
    });
    assert.equal(response.status, 202, await response.clone().text());
    keys.set(name, (await response.json()).key);
  }
  const key = (name: string) => keys.get(name)!;
  const branch = (name: string) => `odek/run/${key(name)}`;
  await waitFor("the slow call to start", async () => {
    return (await startedText()) === "started\n" ? true : undefined;
  }).catch((error) => {
    throw new Error(`${error.message}\n${fx.logs.join("")}`);
  });
  // The first call's checkpoint is on the branch before the kill.
  const before = await branchLog(repository, branch("slow"), base);
  assert.deepEqual(before.map((c) => c.subject), ["odek checkpoint: after shell (call-slow)"]);
  const owner = await waitFor(
    "the slow run's worker",
    async () => (await fx.queue.status(key("slow")))?.workerId,
  );
  const victim = owner === "worker-a" ? a : b;
  victim.kill("SIGKILL");
  await victim.status;
  // The dead worker's unconfined sleep is an orphan now: end it (the test's own marker).
  for (const pid of processesWith(sleep)) Deno.kill(pid, "SIGKILL");

  const results = await Promise.all(names.map((name) => fx.queue.wait(key(name))));
  for (const [index, result] of results.entries()) {
    assert.equal(result.outcome, "completed", `${names[index]}: ${JSON.stringify(result)}`);
    assert.equal(result.text, `done ${names[index]}`);
    assert.equal(result.git?.branch, branch(names[index]));
    assert.equal(result.git?.base, base);
  }
  const slowResult = results[0];
  // Serve shows each run ended, from the queue, with its branch and diff.
  for (const name of names) {
    const record = await waitFor(`serve's record of ${name}`, async () => {
      const body = await (await api(`/api/runs/${key(name)}`)).json();
      return body.state === "running" || body.state === "queued" ? undefined : body;
    });
    assert.equal(record.state, "completed", JSON.stringify(record));
    assert.equal(record.summary, `done ${name}`);
    assert.equal(record.git.branch, branch(name));
    assert.equal(record.git.base, base);
  }
  assert.notEqual(slowResult.workerId, owner, "the slow run finished on the other worker");

  // Each session is intact; each run's branch holds what its completed steps wrote.
  for (const name of names.slice(1)) {
    const { messages } = await fx.queue.sessions.read(`s-${name}`);
    assert.deepEqual(messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ], name);
    // A run the killed worker had in a call too is answered interrupted; the others wrote.
    if (!/interrupted/.test(String(messages[3].content))) {
      assert.equal(await fileAt(repository, branch(name), "out.txt"), `${name}\n`);
      assert.match(results[names.indexOf(name)].git!.diff, new RegExp(`^\\+${name}$`, "m"));
    }
  }
  const slowSession = await fx.queue.sessions.read("s-slow");
  assert.deepEqual(slowSession.messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "assistant",
    "tool",
    "assistant",
    "tool",
    "assistant",
  ]);
  assert.match(String(slowSession.messages[5].content), /interrupted/);
  // The slow call ran once: never again after the takeover (no new sleep of its marker; the
  // checkpoints, taken after completed steps only, never held its started.txt) ...
  assert.deepEqual(processesWith(sleep), []);
  assert.equal(await fileAt(repository, branch("slow"), "started.txt"), undefined);
  // ... no completed step was repeated: the model was asked once per turn (the fake server's
  // log), and first.txt was appended to once ...
  const slowRequests = fx.model.requests.filter((r) => taskOf(r) === "slow");
  assert.deepEqual(
    slowRequests.map((r) =>
      (r.body.messages as { role: string }[]).filter((m) => m.role === "tool").length
    ),
    [0, 1, 2, 3],
    fx.logs.join(""),
  );
  // ... and the workspace was restored from the branch on the other worker: the third call read
  // the first call's file there. The branch has one checkpoint per completed writing step.
  const after = await branchLog(repository, branch("slow"), base);
  assert.deepEqual(after.map((c) => c.subject), [
    "odek checkpoint: after shell (call-slow)",
    "odek checkpoint: after shell (call-slow-2)",
  ]);
  assert.equal(after[0].id, before[0].id, "the first checkpoint was built on, not redone");
  assert.equal(await fileAt(repository, branch("slow"), "first.txt"), "one\n");
  assert.equal(await fileAt(repository, branch("slow"), "after.txt"), "one\n");
  assert.equal(await fileAt(repository, branch("slow"), "README.md"), "base\n");
  assert.equal(slowResult.git?.head, after[1].id);
  assert.equal(slowResult.git?.checkpoints, 2);
  assert.deepEqual(slowResult.git?.files, [
    { path: "after.txt", change: "added" },
    { path: "first.txt", change: "added" },
  ]);
  // The base branch is untouched.
  assert.equal((await git(["--git-dir", repository, "rev-parse", "main"], fx.root)).trim(), base);
}
