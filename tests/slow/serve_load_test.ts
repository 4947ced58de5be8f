/**
 * Issue 20's load case: 20 headless runs started at once over REST against scripted models all
 * complete (the concurrency cap queueing the rest), each session's transcript is intact, and
 * afterwards no run, host, tool child, stream or WebSocket remains (counted; Deno's sanitizers
 * check timers and resources). After a forced GC the heap is within 20 MB of its level after the
 * first run; RSS before and after is printed.
 */
import assert from "node:assert/strict";
import { body, serveFixture, TEST_TOKEN, waitFor } from "../serve/_serve_fixture.ts";

const RUNS = 20;
const gc = (globalThis as { gc?: () => void }).gc;
const MiB = 1024 * 1024;

/** Child processes of this process (tool children, sandboxes), from `ps` (not counting `ps`). */
async function children(): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=,comm=", "--ppid", String(Deno.pid)],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\n")
    .filter((line) => line.trim() !== "" && !/\bps$/.test(line.trim())).length;
}

function heapMiB(): number {
  gc?.();
  return Deno.memoryUsage().heapUsed / MiB;
}

const turns = (n: number) => (_request: unknown, index: number) =>
  index === 0
    ? { toolCalls: [{ id: `r${n}`, name: "read_file", arguments: { path: "missing.txt" } }] }
    : { text: `answer ${n}` };

Deno.test("20 runs started at once over REST all complete under the cap, and nothing is left behind", async () => {
  if (!gc) console.log("serve_load_test: run with --v8-flags=--expose-gc for the heap check");
  const rssBefore = Deno.memoryUsage().rss / MiB;
  await using s = await serveFixture({
    maxConcurrentRuns: 4,
    scripts: Array.from({ length: RUNS + 1 }, (_, n) => turns(n)),
    deps: { limits: { runStartsPerMinute: 1000 } },
  });
  const origin = await s.start();
  const socket = new WebSocket(`${origin.replace("http", "ws")}/ws`, {
    headers: { authorization: `Bearer ${TEST_TOKEN}` },
  } as unknown as string[]);
  const seen: string[] = [];
  socket.onmessage = (m) => seen.push(JSON.parse(m.data).type);
  await waitFor("the socket's hello", () => seen.includes("hello"));

  const first = await body<{ session_id: string }>(
    await s.call("/api/runs", { method: "POST", json: { task: "warm-up" } }),
  );
  await waitFor("the first run", () => s.runs.current(first.session_id) === undefined, 60_000);
  const heapAfterFirst = heapMiB();

  const started = await Promise.all(
    Array.from(
      { length: RUNS },
      (_, n) =>
        s.call("/api/runs", { method: "POST", json: { task: `load task ${n}` } }).then((r) =>
          body<{ session_id: string; state: string }>(r)
        ),
    ),
  );
  assert.equal(started.filter((r) => r.state === "queued").length, RUNS - 4);
  let peak = 0;
  await waitFor("every run's end", () => {
    peak = Math.max(peak, s.runs.running);
    return started.every((r) => s.runs.current(r.session_id) === undefined);
  }, 240_000);
  assert.ok(peak <= 4, `at most 4 went at once (saw ${peak})`);
  for (const [n, run] of started.entries()) {
    const record = s.runs.list().find((r) => r.sessionId === run.session_id)!;
    assert.equal(record.state, "completed", record.summary);
    const { transcript } = await s.f.runtime.sessions.read(run.session_id);
    const task = transcript.find((m) => m.role === "user" && m.content === `load task ${n}`);
    assert.ok(task, `session ${n} has its task`);
    const tools = transcript.filter((m) => m.role === "tool");
    assert.equal(tools.length, 1, `session ${n} has its one tool result`);
    assert.equal(
      transcript.at(-1)?.content,
      `answer ${
        s.f.models.findIndex((m) =>
          m.requests[0]?.messages.some((x) => x.content === `load task ${n}`)
        )
      }`,
    );
  }

  socket.close();
  await waitFor("the socket's close", () => s.runs.events.size === 0);
  assert.equal(s.runs.running, 0, "runs");
  assert.equal(s.f.runtime.hosts.length, 0, "session hosts");
  assert.equal(s.requests.list().length, 0, "pending questions");
  await waitFor("no child process", async () => (await children()) === 0);
  const heapAfter = heapMiB();
  const rssAfter = Deno.memoryUsage().rss / MiB;
  console.log(
    `serve_load_test: heap after the first run ${
      heapAfterFirst.toFixed(1)
    } MiB, after ${RUNS} more ${heapAfter.toFixed(1)} MiB; RSS before ${
      rssBefore.toFixed(1)
    } MiB, after ${rssAfter.toFixed(1)} MiB`,
  );
  if (gc) assert.ok(heapAfter - heapAfterFirst < 20, `heap grew ${heapAfter - heapAfterFirst} MiB`);
});
