/**
 * What a session host starts later (docs/runtime.md, "What a host starts later"): the broker,
 * the classifier and the checkpoint store are not started before the first model request; each
 * is up before the first tool call; a part that fails ends the run with its error, aborting the
 * request in flight, and `host.ready()` gives the error `openSession` used to throw.
 */
import assert from "node:assert/strict";
import type { Model, ModelRequest, ModelResponse } from "../../src/llm/model.ts";
import { exitCodeFor } from "../../src/cli/exit_code.ts";
import { OdekError } from "../../src/_util/odek_error.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

/** A model that answers each request with `answer(i)`, or waits until the request is aborted. */
class RecordingModel implements Model {
  aborted: unknown[] = [];
  requests = 0;
  constructor(readonly answer: (i: number) => ModelResponse | "wait", readonly seen?: () => void) {}
  complete(request: ModelRequest): Promise<ModelResponse> {
    const i = this.requests++;
    this.seen?.();
    const answer = this.answer(i);
    if (answer !== "wait") return Promise.resolve(answer);
    return new Promise((_, reject) => {
      request.signal?.addEventListener("abort", () => {
        this.aborted.push(request.signal!.reason);
        reject(request.signal!.reason);
      });
    });
  }
}

const usage = { inputTokens: 1, outputTokens: 1 };

function shellCall(command: string): ModelResponse {
  return {
    message: {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "shell", arguments: JSON.stringify({ command }) },
      }],
    },
    finishReason: "tool_calls",
    usage,
  } as ModelResponse;
}

const done = {
  message: { role: "assistant", content: "done" },
  finishReason: "stop",
  usage,
} as ModelResponse;

Deno.test("a host starts its broker only as the first request leaves, and the first tool call waits for it", async () => {
  const egressAtRequest: string[][] = [];
  const fixture: { tmp?: string } = {};
  // Read synchronously as each request is made: nothing else can run in between.
  const model = new RecordingModel((i) => (i === 0 ? shellCall("echo started") : done), () => {
    const names = [...Deno.readDirSync(fixture.tmp!)].map((entry) => entry.name);
    egressAtRequest.push(names.filter((name) => name.startsWith("odek-egress-")));
  });
  await using f = await runtimeFixture({ scripts: [], runtime: { modelFactory: () => model } });
  fixture.tmp = f.tmp;
  const workspace = await f.workspace("ws");
  await using host = await f.runtime.openSession({ task: "t" }, { workspace });
  // Opening started nothing of the sandbox side: no egress proxy yet.
  assert.deepEqual(await f.egressDirs(), []);
  const outcome = await (await host.startRun()).result;
  assert.equal(outcome.type, "completed");
  const tool = host.messages.find((m) => m.role === "tool");
  assert.match(String(tool?.content), /started/);
  // The first request was made before the proxy existed; by the second the tool call had run.
  assert.deepEqual(egressAtRequest[0], []);
  assert.equal(egressAtRequest[1].length, 1);
});

Deno.test("host.ready() starts the parts without a run, and close() after it leaves nothing", async () => {
  await using f = await runtimeFixture({ scripts: [[{ text: "unused" }]] });
  const host = await f.runtime.openSession({ task: "t" }, { workspace: await f.workspace("ws") });
  assert.deepEqual(await f.egressDirs(), []);
  await host.ready();
  assert.equal((await f.egressDirs()).length, 1);
  await host.close();
  assert.deepEqual(await f.egressDirs(), []);
});

Deno.test("a host closed before anything used its parts starts none of them", async () => {
  await using f = await runtimeFixture({ scripts: [[{ text: "unused" }]] });
  const host = await f.runtime.openSession({ task: "t" }, { workspace: await f.workspace("ws") });
  await host.close();
  assert.deepEqual(await f.egressDirs(), []);
});

Deno.test("a host whose context files built its broker at open closes that broker when it closes before its first request", async () => {
  // The gate's read classification of context files waits for the parts, so opening built the
  // broker before any tool call; it used to be built beside its stand-in, which closed nothing.
  await using f = await runtimeFixture({
    scripts: [[{ text: "unused" }]],
    config: { contextFiles: ["NOTES.md"] },
  });
  const workspace = await f.workspace("ws");
  await Deno.writeTextFile(`${workspace}/NOTES.md`, "notes\n");
  const host = await f.runtime.openSession({ task: "t" }, { workspace });
  assert.equal((await f.egressDirs()).length, 1, "the context files' read started the parts");
  await host.close();
  assert.deepEqual(await f.egressDirs(), []);
});

Deno.test("a part that fails after the request left aborts the request and ends the run with its error, as open would have thrown it", async () => {
  // The checkpoint store cannot open: ODEK_HOME/checkpoints is a file.
  const model = new RecordingModel(() => "wait");
  await using f = await runtimeFixture({
    scripts: [],
    odekHomeFiles: { checkpoints: { text: "not a directory" } },
    runtime: { modelFactory: () => model },
  });
  await using host = await f.runtime.openSession({ task: "t" }, {
    workspace: await f.workspace("ws"),
  });
  const outcome = await (await host.startRun()).result;
  assert.equal(outcome.type, "failed");
  const failure = await host.ready().then(() => undefined, (error) => error);
  assert.ok(failure instanceof Error, "ready() rejects with the store's error");
  if (outcome.type !== "failed") throw new Error("unreachable");
  assert.equal(outcome.error, failure);
  assert.equal(model.aborted.length, 1, "the request in flight was aborted");
  assert.equal(model.aborted[0], failure);
  assert.equal(exitCodeFor(outcome.error), exitCodeFor(failure));
  // Nothing of the session is worth keeping: it is removed when the host closes, as a failed
  // open removed it.
  assert.ok(outcome.discarded);
  await host.close();
  assert.equal((await f.runtime.sessions.list()).length, 0);
});

Deno.test("a broker that cannot be built fails the first tool call's run with SANDBOX_UNAVAILABLE, not the open", async () => {
  // A compiled odek without a deno for its children: the sandbox context throws.
  const model = new RecordingModel((i) => (i === 0 ? shellCall("echo never") : done));
  const empty = await Deno.makeTempDir(); // a PATH with no deno on it
  await using f = await runtimeFixture({
    scripts: [],
    env: { PATH: empty },
    runtime: { modelFactory: () => model, execPath: "/opt/odek-test/odek" },
  });
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(empty, { recursive: true }) };
  await using host = await f.runtime.openSession({ task: "t" }, {
    workspace: await f.workspace("ws"),
  });
  const outcome = await (await host.startRun()).result;
  if (outcome.type !== "failed") throw new Error(`expected failed, got ${outcome.type}`);
  assert.ok(outcome.error instanceof OdekError);
  assert.equal((outcome.error as OdekError).code, "SANDBOX_UNAVAILABLE");
  assert.equal(host.messages.filter((m) => m.role === "tool").length, 0, "no tool call ran");
});

Deno.test("a first request that is refused for good starts none of the parts, and the host closes with nothing left", async () => {
  // A port nobody listens on: each attempt is refused at once, and retried (quick retries).
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await using f = await runtimeFixture({
    scripts: [],
    env: { ODEK_API_KEY: "test-key" },
    config: { baseUrl: `http://127.0.0.1:${port}/v1` },
    runtime: { modelFactory: undefined }, // odek's own model client
  });
  const host = await f.runtime.openSession({ task: "t" }, { workspace: await f.workspace("ws") });
  const outcome = await (await host.startRun()).result;
  if (outcome.type !== "failed") throw new Error(`expected failed, got ${outcome.type}`);
  assert.equal((outcome.error as OdekError).code, "MODEL_UNREACHABLE");
  assert.equal(host.whenReady(), undefined, "the parts started for a request that never left");
  assert.deepEqual(await f.egressDirs(), []);
  await host.close();
  assert.deepEqual(await f.egressDirs(), []);
});
