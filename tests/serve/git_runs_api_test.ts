/**
 * Runs on a git repository over serve's REST API: only in queue mode (a clear 400 otherwise),
 * zod-checked (a bad repository or ref is a 400 that creates nothing), dispatched with the
 * repository and ref, shown with their branch and diff when they end; a session's next run keeps
 * the branch and the base commit. The queue is a dispatcher fake (the real one needs PostgreSQL:
 * tests/durable/takeover_test.ts runs it end to end).
 */
import assert from "node:assert/strict";
import { createApp, DEFAULT_SERVE_LIMITS } from "../../src/serve/create_app.ts";
import { OperatorRequests } from "../../src/serve/operator_requests.ts";
import type { ServeRunRecord } from "../../src/serve/run_records.ts";
import { continuedGit } from "../../src/serve/run_start.ts";
import type { DispatchedEnd } from "../../src/serve/serve_dispatch.ts";
import { ServeRuns } from "../../src/serve/serve_runs.ts";
import { runtimeFixture } from "../runtime/_runtime_fixture.ts";
import { serveFixture, TEST_TOKEN, waitFor } from "./_serve_fixture.ts";

const BASE = "a".repeat(40);
const HEAD = "b".repeat(40);

Deno.test("without --queue, a run on a repository is a 400 that says it needs --queue", async () => {
  await using s = await serveFixture({ scripts: [] });
  const response = await s.call("/api/runs", {
    method: "POST",
    json: { task: "fix it", repository: "/srv/git/app.git", ref: "main" },
  });
  assert.equal(response.status, 400);
  const { error } = await response.json();
  assert.equal(error.code, "USAGE");
  assert.match(error.message, /needs odek serve --queue/);
  assert.deepEqual(s.runs.list(), []);
});

Deno.test("with a queue: repository and ref are checked, dispatched, and the run shows its branch and diff", async () => {
  await using f = await runtimeFixture({ scripts: [] });
  const dispatched: ServeRunRecord[] = [];
  const end = Promise.withResolvers<DispatchedEnd>();
  const requests = new OperatorRequests(f.runtime.redact);
  await using runs = new ServeRuns({
    runtime: f.runtime,
    requests,
    dispatch: (record) => {
      dispatched.push(structuredClone(record));
      return end.promise;
    },
  });
  await runs.start();
  const app = createApp({
    runtime: f.runtime,
    runs,
    requests,
    token: TEST_TOKEN,
    allowedHosts: ["127.0.0.1"],
    limits: DEFAULT_SERVE_LIMITS,
    version: "test",
  });
  const call = (path: string, json?: unknown) =>
    Promise.resolve(app.request(path, {
      method: json === undefined ? "GET" : "POST",
      headers: {
        host: "127.0.0.1",
        authorization: `Bearer ${TEST_TOKEN}`,
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    }));

  for (
    const [bad, message] of [
      [{ repository: "/srv/git/app.git" }, /ref/],
      [{ ref: "main" }, /repository/],
      [{ repository: "--upload-pack=touch marker", ref: "main" }, /not an option/],
      [{ repository: "relative/app.git", ref: "main" }, /absolute path/],
      [{ repository: "/srv/git/app.git", ref: "main..other" }, /branch, tag/],
      [{ repository: "/srv/git/app.git", ref: "main", workspace: "/srv/ws" }, /not both/],
      [{ repository: "/srv/git/app.git", ref: "main", branch: "main" }, /under odek\//],
      [{ repository: "/srv/git/app.git", ref: "main", branch: "odek/run/q-1" }, /odek's own/],
    ] as const
  ) {
    const response = await call("/api/runs", { task: "fix it", ...bad });
    assert.equal(response.status, 400, JSON.stringify(bad));
    const { error } = await response.json();
    assert.match(error.message, message, JSON.stringify(bad));
  }
  assert.deepEqual(runs.list(), [], "a refused start creates nothing");

  const started = await call("/api/runs", {
    task: "fix it",
    session_id: "s-git",
    repository: "/srv/git/app.git",
    ref: "main",
  });
  assert.equal(started.status, 202, await started.clone().text());
  const run = await started.json();
  assert.equal(run.workspace, "/srv/git/app.git");
  assert.deepEqual(run.git, { repository: "/srv/git/app.git", ref: "main" });
  await waitFor("the dispatch", () => dispatched.length === 1);
  assert.deepEqual(dispatched[0].git, { repository: "/srv/git/app.git", ref: "main" });
  end.resolve({
    state: "completed",
    summary: "done",
    git: {
      branch: `odek/run/${run.key}`,
      base: BASE,
      head: HEAD,
      checkpoints: 1,
      files: [{ path: "out.txt", change: "added" }],
      diff: "+hi\n",
      diffTruncated: false,
    },
  });
  await waitFor("the end", () => runs.record(run.key)?.state === "completed");
  const shown = await (await call(`/api/runs/${run.key}`)).json();
  assert.deepEqual(shown.git, {
    repository: "/srv/git/app.git",
    ref: "main",
    branch: `odek/run/${run.key}`,
    base: BASE,
    head: HEAD,
    checkpoints: 1,
    files: [{ path: "out.txt", change: "added" }],
    diff: "+hi\n",
    diff_truncated: false,
  });
  // The session's next run continues the branch from the same base commit.
  const next = continuedGit(
    { key: "q-next", sessionId: "s-git", state: "queued", createdAt: "", workspace: "/gone" },
    runs.list(),
  );
  assert.equal(next.workspace, "/srv/git/app.git");
  assert.deepEqual(next.git, {
    repository: "/srv/git/app.git",
    ref: BASE,
    branch: `odek/run/${run.key}`,
  });
});
