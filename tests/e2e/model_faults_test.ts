/**
 * Every fault of issue 5 against a real `odek run` process: the fake server (or a closed port, or
 * the reset proxy) misbehaves, and the run ends completed or with a clear error, the session
 * intact. The config shortens the backoff base to 10 ms and the stream-idle timeout to 1 s.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Fault, startFakeOpenAIServer } from "../../src/testing/fake_openai_server.ts";
import { startResetProxy } from "../../src/testing/reset_proxy.ts";
import { type OdekFixture, odekFixture } from "./_odek.ts";

const FINAL = "All done: the answer is 42.";
const BROKEN = "This attempt breaks halfway through its sentence";

async function fixture(): Promise<OdekFixture> {
  const fx = await odekFixture();
  await Deno.writeTextFile(
    join(fx.odekHome, "config.jsonc"),
    JSON.stringify({
      sandbox: "none",
      retry: { baseMs: 10 },
      timeouts: { streamIdleSeconds: 1, connectSeconds: 10 },
    }),
  );
  return fx;
}

/** The session's transcript as `odek sessions show` prints it. */
async function show(fx: OdekFixture, id: string): Promise<string> {
  const shown = await fx.run(["sessions", "show", id]);
  assert.equal(shown.code, 0, shown.stderr);
  return shown.stdout;
}

/**
 * A run whose first model request failed left nothing worth keeping (issue 14, case 10): the
 * session is gone and its task was printed back.
 */
async function assertRemoved(fx: OdekFixture, id: string, stderr: string): Promise<void> {
  assert.ok(stderr.includes(`odek: your task was:\n\ntask ${id}\n`), stderr);
  const shown = await fx.run(["sessions", "show", id]);
  assert.equal(shown.code, 1);
  assert.match(shown.stderr, new RegExp(`No session "${id}"`));
}

/** Runs a task whose first model request meets `fault`, then answers FINAL. */
async function runThrough(fx: OdekFixture, id: string, fault: Fault) {
  await using server = await startFakeOpenAIServer({
    turns: [{ text: BROKEN, fault }, { text: FINAL }],
  });
  const result = await fx.run(["run", "--session", id, "--base-url", server.url, `task ${id}`]);
  return { result, requests: server.requests.length };
}

async function assertCompleted(
  fx: OdekFixture,
  id: string,
  run: { result: { code: number; stdout: string; stderr: string }; requests: number },
  retryLine: RegExp,
) {
  assert.equal(run.result.code, 0, run.result.stderr);
  assert.equal(run.requests, 2);
  assert.match(run.result.stderr, retryLine);
  assert.match(run.result.stdout, /All done: the answer is 42\.\n$/);
  const transcript = await show(fx, id);
  assert.match(transcript, new RegExp(`── user ──\\ntask ${id}`));
  assert.equal(transcript.split(FINAL).length, 2, "the answer is saved once");
  assert.ok(!transcript.includes("This attempt"), "nothing of the failed attempt is saved");
}

Deno.test("odek run: each retryable HTTP status is retried and the run completes", async (t) => {
  await using fx = await fixture();
  for (const status of [408, 500, 502, 503, 504, 529]) {
    await t.step(`HTTP ${status}`, async () => {
      const id = `status-${status}`;
      const run = await runThrough(fx, id, { type: "status", status });
      await assertCompleted(
        fx,
        id,
        run,
        new RegExp(`↻ model HTTP ${status}: retry 2/8 in \\d+ ms`),
      );
    });
  }
});

Deno.test("odek run: a 429 waits its Retry-After, in seconds or as an HTTP date", async (t) => {
  await using fx = await fixture();
  await t.step("seconds", async () => {
    const run = await runThrough(fx, "ra-seconds", {
      type: "status",
      status: 429,
      retryAfter: "1",
    });
    await assertCompleted(fx, "ra-seconds", run, /↻ model HTTP 429: retry 2\/8 in 1\.0 s/);
  });
  await t.step("HTTP date", async () => {
    const at = new Date(Date.now() + 5000).toUTCString();
    const run = await runThrough(fx, "ra-date", { type: "status", status: 429, retryAfter: at });
    await assertCompleted(
      fx,
      "ra-date",
      run,
      /↻ model HTTP 429: retry 2\/8 in (\d{3} ms|[1-5]\.\d s)/,
    );
  });
});

// A 200 that is not an event stream at all (plain text, a web page) fails at once since issue 14
// (case 9): tests/e2e/provider_cases_test.ts.
Deno.test("odek run: broken 200s (malformed, empty choices, cut, stalled, reset) are retried", async (t) => {
  await using fx = await fixture();
  const cases: [string, Fault, RegExp][] = [
    ["malformed", { type: "malformed" }, /model sent malformed data: retry 2\/8/],
    ["empty-choices", { type: "empty_choices" }, /model sent an empty answer: retry 2\/8/],
    ["cut", { type: "cut", afterChunks: 4 }, /model stream cut off: retry 2\/8/],
    ["stalled", { type: "stall", afterChunks: 4 }, /model stream stalled: retry 2\/8/],
    ["reset", { type: "reset", afterChunks: 3 }, /model connection reset: retry 2\/8/],
  ];
  for (const [id, fault, line] of cases) {
    await t.step(id, async () => {
      const run = await runThrough(fx, id, fault);
      await assertCompleted(fx, id, run, line);
    });
  }
});

Deno.test("odek run: a connection dropped before any response is retried", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({ turns: [{ text: FINAL }] });
  await using proxy = await startResetProxy({ target: server.url, resets: 1 });
  const result = await fx.run(["run", "--session", "drop", "--base-url", proxy.url, "task drop"]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(proxy.resetCount, 1);
  assert.match(result.stderr, /↻ model connection reset: retry 2\/8/);
  assert.equal((await show(fx, "drop")).split(FINAL).length, 2);
});

Deno.test("odek run: a far-off quota reset or an exhausted quota fails fast, saying when to retry", async (t) => {
  await using fx = await fixture();
  const cases: [string, Fault, RegExp][] = [
    [
      "retry-after-hours",
      { type: "status", status: 429, retryAfter: "7200" },
      /HTTP 429: .*It asks to wait 2 h 0 min.*retry after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/,
    ],
    [
      "ratelimit-reset",
      {
        type: "status",
        status: 429,
        headers: { "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "3h0m0s" },
      },
      /It asks to wait 3 h 0 min/,
    ],
    [
      "insufficient-quota",
      {
        type: "status",
        status: 429,
        body: JSON.stringify({
          error: { message: "You exceeded your current quota.", code: "insufficient_quota" },
        }),
      },
      /quota or balance is used up.*plan and billing/,
    ],
  ];
  for (const [id, fault, message] of cases) {
    await t.step(id, async () => {
      const { result, requests } = await runThrough(fx, id, fault);
      assert.equal(result.code, 1, result.stderr);
      assert.equal(requests, 1, "no retry");
      assert.doesNotMatch(result.stderr, /↻/);
      const error = result.stderr.split("\n").find((l) => l.startsWith("odek: The model at"));
      assert.ok(error, result.stderr);
      assert.match(error, message);
      await assertRemoved(fx, id, result.stderr);
    });
  }
});

Deno.test("odek run: exhausted retries end in a clear error, the never-answered session removed with its task printed", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({
    turns: () => ({ fault: { type: "status", status: 503 } }),
  });
  const result = await fx.run(["run", "--session", "down", "--base-url", server.url, "task down"]);
  assert.equal(result.code, 1);
  assert.equal(server.requests.length, 8);
  assert.equal(result.stderr.match(/↻ model HTTP 503/g)?.length, 7);
  assert.match(
    result.stderr,
    /odek: The model at .* answered HTTP 503: .*gave up after 8 attempts/,
  );
  await assertRemoved(fx, "down", result.stderr);
});

Deno.test("odek run: a refused connection gets two quick retries, then fails naming the URL", async () => {
  await using fx = await fixture();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/v1`;
  listener.close();
  const result = await fx.run(["run", "--session", "refused", "--base-url", url, "task refused"]);
  assert.equal(result.code, 1);
  assert.equal(result.stderr.match(/↻ model connection refused: retry [23]\/8/g)?.length, 2);
  assert.match(
    result.stderr,
    /odek: Cannot reach the model at http:\/\/127\.0\.0\.1:\d+\/v1: connection refused/,
  );
  assert.ok(result.stderr.includes(url));
  await assertRemoved(fx, "refused", result.stderr);
});

Deno.test("odek run --json: a retry is a model_retry event between the failed and the retried deltas", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({
    turns: [{ text: BROKEN, fault: { type: "cut", afterChunks: 3 } }, { text: FINAL }],
  });
  const result = await fx.run(["run", "--json", "--base-url", server.url, "task json"]);
  assert.equal(result.code, 0, result.stderr);
  const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const types = events.map((e) => e.type);
  const retry = events.find((e) => e.type === "model_retry");
  assert.deepEqual(
    { ...retry.data, wait_ms: typeof retry.data.wait_ms },
    { attempt: 2, max_attempts: 8, wait_ms: "number", reason: "cut" },
  );
  assert.equal(retry.iteration, 1);
  const at = types.indexOf("model_retry");
  assert.ok(types.slice(0, at).includes("text_delta"), "the failed attempt streamed first");
  const after = events.slice(at + 1).filter((e) => e.type === "text_delta");
  assert.equal(after.map((e) => e.data.text).join(""), FINAL);
  assert.equal(types.filter((t) => t === "assistant_message").length, 1);
});

Deno.test("odek continue: a run stopped by an exhausted quota resumes once the provider answers", async () => {
  await using fx = await fixture();
  {
    // A first turn answered, so the session is kept when the quota runs out (issue 14, case 10).
    await using server = await startFakeOpenAIServer({
      turns: [
        { toolCalls: [{ id: "g1", name: "glob", arguments: { pattern: "*.md" } }] },
        { fault: { type: "status", status: 429, retryAfter: "7200" } },
      ],
    });
    const result = await fx.run([
      "run",
      "--session",
      "quota-then-ok",
      "--base-url",
      server.url,
      "task quota-then-ok",
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /The session is saved: resume it with odek continue quota-then-ok/);
  }
  await using server = await startFakeOpenAIServer({ turns: [{ text: FINAL }] });
  const resumed = await fx.run(["continue", "quota-then-ok", "--base-url", server.url]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const sent = server.requests[0].body.messages as { role: string; content: string }[];
  assert.deepEqual(sent.filter((m) => m.role === "user").map((m) => m.content), [
    "task quota-then-ok",
  ]);
  const transcript = await show(fx, "quota-then-ok");
  assert.equal(transcript.split(FINAL).length, 2);
});

Deno.test("odek run: Ctrl-C during a retry wait stops the run at once with the session saved", async () => {
  await using fx = await fixture();
  await using server = await startFakeOpenAIServer({
    turns: [{ fault: { type: "status", status: 503, retryAfter: "100" } }, { text: FINAL }],
  });
  const child = fx.spawn(["run", "--session", "waiting", "--base-url", server.url, "task wait"]);
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  while (!stderr.includes("↻")) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  assert.match(stderr, /↻ model HTTP 503: retry 2\/8 in 100\.0 s/);
  child.kill("SIGINT");
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stderr += value;
  }
  const status = await child.status;
  await child.stdout.cancel();
  assert.equal(status.code, 130, stderr);
  assert.equal(server.requests.length, 1, "the retry never started");
  assert.match(await show(fx, "waiting"), /── user ──\ntask wait/);
});
