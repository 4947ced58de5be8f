import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { RuntimeEvent } from "../../src/runtime/event_subscription.ts";
import { MemorySessionStore } from "../../src/session/memory_session_store.ts";
import type { OpenSession, SessionStore } from "../../src/session/session_store.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

async function all(events: AsyncIterable<RuntimeEvent>): Promise<RuntimeEvent[]> {
  const out: RuntimeEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

Deno.test("a run on a new session host: numbered events from run_started to run_completed, and the journal", async () => {
  await using f = await runtimeFixture({
    scripts: [[
      { toolCalls: [{ id: "c1", name: "shell", arguments: { command: "echo hello" } }] },
      { text: "It said hello." },
    ]],
  });
  const workspace = await f.workspace("ws");
  await using host = await f.runtime.openSession({ task: "say hello" }, { workspace });
  assert.equal(host.workspace, workspace);
  await using run = await host.startRun();
  const events = await all(run.events);
  const outcome = await run.result;
  assert.equal(outcome.type, "completed", JSON.stringify(outcome));
  assert.equal(outcome.type === "completed" && outcome.text, "It said hello.");
  assert.equal(events[0].type, "run_started");
  assert.equal(events.at(-1)!.type, "run_completed");
  assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i + 1));
  assert.ok(events.every((e) => e.id === `${run.id}:${e.seq}` && e.session_id === host.sessionId));
  const started = events[0].type === "run_started" ? events[0].data : undefined;
  assert.deepEqual(
    { workspace: started?.workspace, resumed: started?.resumed, sandbox: started?.sandbox },
    { workspace, resumed: false, sandbox: "none" },
  );
  const { messages } = await f.runtime.sessions.read(host.sessionId);
  assert.deepEqual(messages.map((m) => m.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  assert.match(String(messages[3].content), /hello/);
});

Deno.test("startRun() rejects the issue's two bad limits before anything is journaled", async (t) => {
  await using f = await runtimeFixture({ scripts: [[{ text: "never asked" }]] });
  await using host = await f.runtime.openSession({ task: "t" }, {
    workspace: await f.workspace("ws"),
  });
  const before = (await f.runtime.sessions.read(host.sessionId)).messages.length;
  await t.step(
    "maxToolParallel: 0 (used to journal a turn, then fail with a TypeError)",
    async () => {
      await assert.rejects(
        host.startRun({ budgets: { maxToolParallel: 0 } }),
        (error) => error instanceof RangeError && /budgets\.maxToolParallel/.test(error.message),
      );
    },
  );
  await t.step(
    "maxRuntimeMs above 2³¹−1 (used to overflow the timer and end at once)",
    async () => {
      await assert.rejects(
        host.startRun({ budgets: { maxRuntimeMs: 2 ** 31 } }),
        (error) => error instanceof RangeError && /budgets\.maxRuntimeMs/.test(error.message),
      );
    },
  );
  await t.step("a message that is not a string", async () => {
    await assert.rejects(
      host.startRun({ message: 42 as unknown as string }),
      (error) => error instanceof TypeError && /message must be a string/.test(error.message),
    );
  });
  assert.equal((await f.runtime.sessions.read(host.sessionId)).messages.length, before);
  assert.equal(f.models[0].requests.length, 0);
});

Deno.test("a second run on the same host continues the transcript; one run at a time; nothing left to do is refused", async () => {
  await using f = await runtimeFixture({
    scripts: [
      (request) =>
        request.messages.at(-1)?.content === "and again?"
          ? { text: "second answer" }
          : { text: "first answer" },
    ],
  });
  await using host = await f.runtime.openSession({ task: "first" }, {
    workspace: await f.workspace("ws"),
  });
  const first = await host.startRun();
  await assert.rejects(
    host.startRun({ message: "too soon" }),
    (error) => error instanceof OdekError && error.code === "SESSION_BUSY",
  );
  assert.equal((await first.result).type, "completed");
  // The transcript ends with a final answer: a run needs a message.
  await assert.rejects(
    host.startRun(),
    (error) =>
      error instanceof OdekError && error.code === "USAGE" &&
      /nothing left to do/.test(error.message),
  );
  const second = await host.startRun({ message: "and again?" });
  const outcome = await second.result;
  assert.equal(outcome.type === "completed" && outcome.text, "second answer");
  const events = await all(second.events);
  const started = events[0].type === "run_started" ? events[0].data : undefined;
  assert.equal(started?.resumed, true, "the second run goes on with an existing transcript");
  assert.notEqual(first.id, second.id);
  assert.equal(f.models.length, 1, "one model client per host");
});

Deno.test("cancel() and the caller's signal end a run interrupted, naming what stopped it", async () => {
  await using f = await runtimeFixture({
    scripts: [[{ fault: { type: "hang" } }, { fault: { type: "hang" } }]],
  });
  await using host = await f.runtime.openSession({ task: "wait" }, {
    workspace: await f.workspace("ws"),
  });
  const run = await host.startRun();
  run.cancel("the operator");
  const outcome = await run.result;
  assert.equal(outcome.type, "interrupted");
  assert.equal(outcome.type === "interrupted" && outcome.reason, "the operator");
  assert.match(
    outcome.type === "interrupted" ? outcome.error.message : "",
    /^Interrupted by the operator\./,
  );
  const controller = new AbortController();
  const second = await host.startRun({ message: "again", signal: controller.signal });
  controller.abort("SIGTERM");
  const next = await second.result;
  assert.equal(next.type === "interrupted" && next.reason, "SIGTERM");
  const events = await all(second.events);
  assert.equal(events.at(-1)!.type, "run_failed");
});

Deno.test("runtime.events() streams the events of every run of every host", async () => {
  await using f = await runtimeFixture({ scripts: [[{ text: "a" }], [{ text: "b" }]] });
  const stream = f.runtime.events();
  const hostA = await f.runtime.openSession({ task: "a" }, { workspace: await f.workspace("a") });
  const hostB = await f.runtime.openSession({ task: "b" }, { workspace: await f.workspace("b") });
  const runs = await Promise.all([hostA.startRun(), hostB.startRun()]);
  await Promise.all(runs.map((run) => run.result));
  await hostA.close();
  await hostB.close();
  await f.runtime.close();
  const seen = await all(stream);
  for (const run of runs) {
    const own = seen.filter((e) => e.run_id === run.id);
    assert.equal(own[0].type, "run_started");
    assert.equal(own.at(-1)!.type, "run_completed");
    assert.deepEqual(own.map((e) => e.seq), own.map((_, i) => i + 1));
  }
});

Deno.test("openSession() rejects bad arguments with a TypeError or RangeError naming the option", async (t) => {
  await using f = await runtimeFixture({ scripts: [] });
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    ["no task nor session", () => f.runtime.openSession({} as never), /target needs a task/],
    [
      "an empty task",
      () => f.runtime.openSession({ task: "  " }),
      /target\.task must not be empty/,
    ],
    [
      "a trust level",
      () => f.runtime.openSession({ task: "t" }, { trust: "root" as never }),
      /^trust must be/,
    ],
    [
      "addDirs",
      () => f.runtime.openSession({ task: "t" }, { addDirs: "x" as never }),
      /addDirs must be an array/,
    ],
    [
      "an approver",
      () => f.runtime.openSession({ task: "t" }, { approver: {} as never }),
      /approver\.decide must be a function/,
    ],
    [
      "a base URL",
      () => f.runtime.openSession({ task: "t" }, { baseUrl: "ftp://x" }),
      /baseUrl must be an http\(s\) URL/,
    ],
  ];
  for (const [name, open, message] of cases) {
    await t.step(name, async () => {
      await assert.rejects(
        open,
        (error) =>
          (error instanceof TypeError || error instanceof RangeError) &&
          message.test(error.message),
      );
    });
  }
  assert.deepEqual(await f.runtime.sessions.list(), [], "no session was created");
});

/** A store whose sessions fail their first append (a full disk, say). */
class FailingAppendStore extends MemorySessionStore {
  override async create(...args: Parameters<SessionStore["create"]>): Promise<OpenSession> {
    const session = await super.create(...args);
    return new Proxy(session, {
      get(target, key) {
        if (key === "append") return () => Promise.reject(new Error("No space left on device"));
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}

// The failing inputs: `odek run` leaked the broker (its egress proxy, children) and the session
// lock when the first append threw; now every failure after the broker exists closes it. The
// broker's egress proxy leaves its socket directory until it is closed; a session's lock keeps
// it from being deleted.
Deno.test("openSession(): a first append that throws leaves no broker, proxy, lock or session behind", async () => {
  const store = new FailingAppendStore();
  await using f = await runtimeFixture({ scripts: [[{ text: "never" }]], runtime: { store } });
  await assert.rejects(
    f.runtime.openSession({ task: "t", sessionId: "doomed" }, {
      workspace: await f.workspace("ws"),
    }),
    /No space left on device/,
  );
  assert.deepEqual(await store.list(), [], "the half-made session was unlocked and removed");
  assert.deepEqual(await f.egressDirs(), [], "the broker's egress proxy is still open");
  assert.equal(f.runtime.hosts.length, 0);
});

Deno.test("openSession(): a session name already taken fails after the broker was built, and nothing leaks", async () => {
  await using f = await runtimeFixture({ scripts: [[{ text: "a" }], [{ text: "never" }]] });
  const workspace = await f.workspace("ws");
  const first = await f.runtime.openSession({ task: "t", sessionId: "taken" }, { workspace });
  await first.ready(); // the broker is built on first use (docs/runtime.md)
  assert.equal((await f.egressDirs()).length, 1, "a host's broker has an egress proxy");
  await first.close();
  assert.deepEqual(await f.egressDirs(), []);
  await assert.rejects(
    f.runtime.openSession({ task: "t", sessionId: "taken" }, { workspace }),
    (error) => error instanceof OdekError && error.code === "USAGE",
  );
  assert.deepEqual(await f.egressDirs(), [], "the failed open left its egress proxy open");
  // The original is intact and unlocked.
  const [row] = await f.runtime.sessions.list();
  assert.equal(row.id, "taken");
  assert.equal(row.locked, false);
  assert.ok(row.messageCount >= 2);
  await (await f.runtime.sessions.open("taken")).close();
});

Deno.test("createRuntime() reads only what it is given: HOME and ODEK_HOME come from env, not the process", async (t) => {
  const { createRuntime } = await import("../../src/runtime/create_runtime.ts");
  await t.step("no HOME in env is a configuration error, whatever this process has", async () => {
    await assert.rejects(
      createRuntime({ env: {}, installDir: "/opt/odek" }),
      (error) => error instanceof OdekError && error.code === "CONFIG_INVALID",
    );
  });
  await t.step("bad options name themselves", async () => {
    await assert.rejects(
      createRuntime({ env: { HOME: 1 } as never, installDir: "/x" }),
      /env\.HOME must be a string/,
    );
    await assert.rejects(
      createRuntime({ env: {}, installDir: "rel" }),
      /installDir must be an absolute path/,
    );
    await assert.rejects(
      createRuntime({ env: {}, installDir: "/x", cwd: "rel" }),
      /cwd must be an absolute path/,
    );
    await assert.rejects(
      createRuntime({ env: {}, installDir: "/x", clock: {} as never }),
      /clock\.now must be a function/,
    );
  });
  await t.step("two runtimes in one process keep apart", async () => {
    const dir = await Deno.makeTempDir();
    try {
      await using a = await createRuntime({
        env: { HOME: join(dir, "a") },
        installDir: "/opt/odek",
      });
      await using b = await createRuntime({
        env: { HOME: join(dir, "b") },
        installDir: "/opt/odek",
      });
      assert.notEqual(a.paths.odekHome, b.paths.odekHome);
      assert.equal(a.paths.odekHome, join(dir, "a", ".odek"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
