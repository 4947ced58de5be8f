/**
 * `odek mcp serve`'s shutdown and the hosts still opening: disposal of the service waits for a
 * `run_task` whose host was not open yet when the server stopped, closes that host, and calls
 * made after the stop open nothing.
 *
 * @module
 */
import assert from "node:assert/strict";
import { McpService, type ServedCall } from "../../../src/mcp/_serve_service.ts";
import type { Runtime } from "../../../src/runtime/runtime.ts";
import type { SessionHost } from "../../../src/runtime/session_host.ts";
import { runtimeFixture } from "../../runtime/_runtime_fixture.ts";

/** A host that records what was done with it; its run ends at once (cancelled). */
function fakeHost(log: string[]): SessionHost {
  const host = {
    sessionId: "s-1",
    workspace: "/nonexistent-workspace",
    warnings: [],
    messages: [],
    ready: () => Promise.resolve(),
    close: () => {
      log.push("closed");
      return Promise.resolve();
    },
    startRun: () => {
      log.push("run started");
      return Promise.resolve({
        events: (async function* () {})(),
        result: Promise.resolve({
          type: "cancelled",
          error: { message: "cancelled" },
        }),
      });
    },
  };
  return host as unknown as SessionHost;
}

/** A runtime whose `openSession` waits until `release` is called. */
function slowRuntime(log: string[]) {
  const opened = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const runtime = {
    openSession: async () => {
      log.push("opening");
      opened.resolve();
      await gate.promise;
      return fakeHost(log);
    },
    sessions: {
      delete: () => {
        log.push("session removed");
        return Promise.resolve();
      },
    },
  };
  return { runtime: runtime as unknown as Runtime, opened: opened.promise, release: gate.resolve };
}

function servedCall(): ServedCall {
  return {
    asker: {} as ServedCall["asker"],
    signal: new AbortController().signal,
  };
}

Deno.test("mcp serve's shutdown waits for a run_task host still opening, closes it, runs nothing on it", async () => {
  const log: string[] = [];
  const slow = slowRuntime(log);
  const service = new McpService({ runtime: slow.runtime, workspaces: [] });
  const answer = service.call("run_task", { task: "write a file" }, servedCall());
  await slow.opened;
  const disposal = service[Symbol.asyncDispose]().then(() => void log.push("disposed"));
  // Every microtask runs before a timer's callback: a disposal that does not wait for the
  // opening host has ended by then.
  await new Promise((resolve) => setTimeout(resolve, 0));
  slow.release();
  await disposal;
  assert.deepEqual(
    log,
    ["opening", "closed", "session removed", "disposed"],
    "the host opened after the stop is closed, not run, its session removed, before the disposal ends",
  );
  const result = await answer;
  assert.deepEqual(result.isError, true);
  assert.match(result.content[0].text, /odek mcp serve is stopping/);
});

Deno.test("mcp serve: calls after the shutdown began are refused as error results and open no host", async () => {
  const log: string[] = [];
  const slow = slowRuntime(log);
  slow.release();
  const service = new McpService({ runtime: slow.runtime, workspaces: [] });
  await service[Symbol.asyncDispose]();
  for (const name of ["run_task", "read_file"]) {
    const result = await service.call(name, { task: "t", path: "a" }, servedCall());
    assert.deepEqual(result.isError, true, name);
    assert.match(result.content[0].text, /^error \(not run\): odek mcp serve is stopping/, name);
  }
  assert.deepEqual(log, [], "nothing was opened");
});

Deno.test("mcp serve: a run_task whose host was still opening at the stop leaves no session behind", async () => {
  await using f = await runtimeFixture({ scripts: [[{ text: "never asked" }]] });
  const service = new McpService({ runtime: f.runtime, workspaces: [] });
  const answer = service.call("run_task", { task: "write a file" }, servedCall());
  // Stopped while the host opens (openSession is under way: the session file is being made).
  await service[Symbol.asyncDispose]();
  const result = await answer;
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /odek mcp serve is stopping/);
  assert.deepEqual(
    (await f.runtime.sessions.list()).map((s) => s.title),
    [],
    "a session whose task never ran is left in the store (and offered to odek continue)",
  );
});

Deno.test("mcp serve: a run_task still checking its workspace when the stop began opens no host", async () => {
  const log: string[] = [];
  const slow = slowRuntime(log);
  slow.release();
  const workspace = await Deno.makeTempDir();
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(workspace) };
  const service = new McpService({ runtime: slow.runtime, workspaces: [workspace] });
  // The workspace is realpathed (awaited) before a host opens: the stop comes meanwhile.
  const answer = service.call("run_task", { task: "t", workspace }, servedCall());
  await service[Symbol.asyncDispose]();
  const result = await answer;
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /odek mcp serve is stopping/);
  assert.deepEqual(log, [], "a host was opened after the stop began");
});

Deno.test("mcp serve: direct calls at the stop — one opening the host, one queued behind it — run nothing, and the host is closed once", async () => {
  const log: string[] = [];
  const slow = slowRuntime(log);
  const service = new McpService({ runtime: slow.runtime, workspaces: [] });
  const first = service.call("read_file", { path: "a" }, servedCall());
  const queued = service.call("glob", { pattern: "*" }, servedCall());
  await slow.opened;
  const disposal = service[Symbol.asyncDispose]().then(() => void log.push("disposed"));
  slow.release();
  await disposal;
  for (const result of [await first, await queued]) {
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /odek mcp serve is stopping/);
  }
  assert.deepEqual(log, ["opening", "closed", "disposed"], "a run was started after the stop");
});
