/**
 * The takeover case (test helper): runs over two workers, one killed with SIGKILL in a tool call.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { processesWith, uniqueSleep } from "../broker/_processes.ts";
import { durableFixture, taskOf, waitFor } from "./_durable_fixture.ts";

/** The small count of the main suite; tests/slow/ runs 20. */
export async function takeoverCase(runs: number): Promise<void> {
  const sleep = uniqueSleep();
  // The slow run's call notes that it started, then sleeps until its worker is killed.
  await using fx = await durableFixture((task) =>
    task === "slow" ? `echo started >> started.txt; ${sleep}` : `echo ${task} > out.txt`
  );
  const a = fx.worker("worker-a", ["--lease", "5"]);
  const b = fx.worker("worker-b", ["--lease", "5"]);
  void b;
  const api = await fx.serve();
  const names = ["slow", ...Array.from({ length: runs - 1 }, (_, i) => `r${i}`)];
  const workspaces = new Map<string, string>();
  const keys = new Map<string, string>();
  for (const name of names) {
    const workspace = await fx.workspace(name);
    workspaces.set(name, workspace);
    // Submitted over serve's REST API, which puts each run on the queue.
    const response = await api("/api/runs", {
      task: `task ${name}`,
      session_id: `s-${name}`,
      workspace,
    });
    assert.equal(response.status, 202, await response.clone().text());
    keys.set(name, (await response.json()).key);
  }
  const key = (name: string) => keys.get(name)!;
  const slow = workspaces.get("slow")!;
  await waitFor("the slow call to start", async () => {
    const text = await Deno.readTextFile(join(slow, "started.txt")).catch(() => "");
    return text.includes("started") ? true : undefined;
  }).catch((error) => {
    throw new Error(`${error.message}\n${fx.logs.join("")}`);
  });
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
  }
  const slowResult = results[0];
  // Serve shows each run ended, from the queue.
  for (const name of names) {
    const record = await waitFor(`serve's record of ${name}`, async () => {
      const body = await (await api(`/api/runs/${key(name)}`)).json();
      return body.state === "running" || body.state === "queued" ? undefined : body;
    });
    assert.equal(record.state, "completed", JSON.stringify(record));
    assert.equal(record.summary, `done ${name}`);
  }
  assert.notEqual(slowResult.workerId, owner, "the slow run finished on the other worker");

  // Each session is intact: user, assistant with the call, its result, the answer.
  for (const name of names) {
    const { messages } = await fx.queue.sessions.read(`s-${name}`);
    assert.deepEqual(messages.map((m) => m.role), [
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ], name);
    // A run the killed worker had in a call too is answered interrupted; the others wrote.
    if (name !== "slow" && !/interrupted/.test(String(messages[3].content))) {
      const out = await Deno.readTextFile(join(workspaces.get(name)!, "out.txt")).catch(() => "");
      assert.equal(out.trim(), name, JSON.stringify(messages[3]));
    }
  }
  const slowSession = await fx.queue.sessions.read("s-slow");
  const toolResult = slowSession.messages[3];
  assert.equal(toolResult.role, "tool");
  assert.match(String(toolResult.content), /interrupted/);
  // The call ran once (never again after the takeover) ...
  assert.equal(await Deno.readTextFile(join(slow, "started.txt")), "started\n");
  // ... and no completed step was repeated: the model was asked once for the call, once after.
  const slowRequests = fx.model.requests.filter((r) => taskOf(r) === "slow");
  assert.equal(slowRequests.length, 2, fx.logs.join(""));
  assert.equal(
    (slowRequests[1].body.messages as { role: string }[]).filter((m) => m.role === "tool").length,
    1,
  );
}
