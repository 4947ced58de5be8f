/**
 * Attacker review of runs on a git repository over serve's REST API (issue 22): a request body
 * cannot name a push `remote` (only the queue's own producers can), nor an option, an `ext::` or
 * `fd::` transport, a relative path or revision syntax; each is a 400 that dispatches nothing. The
 * queue is a dispatcher fake, as in git_runs_api_test.ts.
 */
import assert from "node:assert/strict";
import { createApp, DEFAULT_SERVE_LIMITS } from "../../src/serve/create_app.ts";
import { OperatorRequests } from "../../src/serve/operator_requests.ts";
import type { ServeRunRecord } from "../../src/serve/run_records.ts";
import type { DispatchedEnd } from "../../src/serve/serve_dispatch.ts";
import { ServeRuns } from "../../src/serve/serve_runs.ts";
import { runtimeFixture } from "../runtime/_runtime_fixture.ts";
import { TEST_TOKEN, waitFor } from "./_serve_fixture.ts";

Deno.test("git attack over REST: remote, options, transports, relative paths and revision syntax are 400s that dispatch nothing", async () => {
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
  const post = (json: unknown) =>
    Promise.resolve(app.request("/api/runs", {
      method: "POST",
      headers: {
        host: "127.0.0.1",
        authorization: `Bearer ${TEST_TOKEN}`,
        "content-type": "application/json",
      },
      body: JSON.stringify(json),
    }));
  const good = { task: "fix it", repository: "/srv/git/app.git", ref: "main" };
  for (
    const bad of [
      { ...good, remote: "../../../../srv/git/hostile.git" },
      { ...good, remote: "/srv/git/app.git", branch: "main" },
      { ...good, git: { repository: "/srv/git/app.git", ref: "main", remote: "x" } },
      { ...good, repository: "--upload-pack=touch x" },
      { ...good, repository: "ext::sh -c x" },
      { ...good, repository: "fd::3" },
      { ...good, repository: "srv/git/app.git" },
      { ...good, ref: "main:refs/heads/other" },
      { ...good, ref: "-delete" },
      { ...good, branch: "x:refs/heads/main" },
      { ...good, branch: "refs/heads/main" },
    ]
  ) {
    const response = await post(bad);
    assert.equal(response.status, 400, JSON.stringify(bad));
    await response.body?.cancel();
  }
  assert.deepEqual(dispatched, []);
  assert.deepEqual(runs.list(), []);
  // The same app takes the good request: the 400s above were the values, not the set-up.
  const accepted = await post(good);
  assert.ok(accepted.status < 300, String(accepted.status));
  await accepted.body?.cancel();
  assert.equal(runs.list().length, 1);
  await waitFor("the dispatch", () => dispatched.length === 1);
  end.resolve({ state: "completed", summary: "" });
  const key = runs.list()[0].key;
  await waitFor("the end", () => runs.record(key)?.state === "completed");
});
