/**
 * The stand-ins of a host's later parts (src/runtime/_deferred_broker.ts, _host_startup.ts):
 * nothing is built before first use, each use waits for the part, a failed part is every use's
 * error, and a closed stand-in builds nothing.
 */
import assert from "node:assert/strict";
import { DeferredBroker } from "../../src/runtime/_deferred_broker.ts";
import {
  deferredCheckpointStore,
  deferredGate,
  failWithStartup,
} from "../../src/runtime/_host_startup.ts";
import { FakeBroker } from "../../src/testing/fake_broker.ts";
import { NonInteractiveApprover } from "../../src/approval/non_interactive_approver.ts";
import type { ToolGate } from "../../src/loop/gate_tool_calls.ts";
import type { Model, ModelRequest, ModelResponse } from "../../src/llm/model.ts";

const call = { id: "c1", name: "glob", args: { pattern: "*" } };

Deno.test("DeferredBroker builds on first use, once; a call waits for the build", async () => {
  let builds = 0;
  const built = Promise.withResolvers<FakeBroker>();
  const broker = new DeferredBroker(() => {
    builds++;
    return built.promise;
  });
  assert.equal(builds, 0, "nothing is built before first use");
  let settled = false;
  const result = broker.run(call).then((r) => {
    settled = true;
    return r;
  });
  const again = broker.run(call);
  assert.equal(builds, 1);
  await Promise.resolve();
  assert.equal(settled, false, "the call waits for the broker");
  built.resolve(new FakeBroker(() => ({ ok: true, output: "ran" })));
  assert.ok((await result).ok);
  assert.ok((await again).ok);
  assert.equal(builds, 1);
  await broker.close();
});

Deno.test("DeferredBroker: a failed build is each call's error; closing it throws nothing", async () => {
  const broken = new Error("no sandbox");
  const broker = new DeferredBroker(() => Promise.reject(broken));
  await assert.rejects(broker.run(call), (error) => error === broken);
  await assert.rejects(broker.runAfter(call, Promise.resolve()), (error) => error === broken);
  await broker.close();
});

Deno.test("DeferredBroker closed before any use builds nothing, even when asked after", async () => {
  let builds = 0;
  const broker = new DeferredBroker(() => {
    builds++;
    return Promise.resolve(new FakeBroker(() => ({ ok: true, output: "" })));
  });
  await broker.close();
  broker.prepare();
  await assert.rejects(broker.run(call), /closed/);
  assert.equal(builds, 0);
});

Deno.test("DeferredBroker closes what a build in progress made", async () => {
  const built = Promise.withResolvers<FakeBroker>();
  const fake = new FakeBroker(() => ({ ok: true, output: "" }));
  let closed = 0;
  fake.close = () => {
    closed++;
    return Promise.resolve();
  };
  const broker = new DeferredBroker(() => built.promise);
  void broker.ready().catch(() => {}); // the host's start-up begins the build
  const closing = broker.close();
  built.resolve(fake);
  await closing;
  assert.equal(closed, 1);
});

Deno.test("DeferredBroker: the model-is-thinking hint builds nothing, and is passed on once the broker is built", async () => {
  let builds = 0;
  let prepared = 0;
  const fake = new FakeBroker(() => ({ ok: true, output: "" }));
  fake.prepare = () => void prepared++;
  const broker = new DeferredBroker(() => {
    builds++;
    return Promise.resolve(fake);
  });
  broker.prepare();
  assert.equal(builds, 0, "prepare() started a build");
  await broker.ready();
  assert.equal(builds, 1);
  assert.equal(prepared, 1, "the hint given before the build reached the broker");
  broker.prepare();
  assert.equal(prepared, 2);
  await broker.close();
});

Deno.test("deferredGate classifies only once built; ready() waits for the whole start-up and rejects with its failure", async () => {
  const approver = new NonInteractiveApprover();
  const inner: ToolGate = {
    classify: () => ({ parts: [], decision: "allow", reason: "ok" }),
    approver,
  };
  const startup = Promise.withResolvers<void>();
  let builds = 0;
  const gate = deferredGate(
    () => {
      builds++;
      return Promise.resolve(inner);
    },
    () => startup.promise,
    approver,
  );
  assert.equal(builds, 0, "nothing is built before ready()");
  assert.throws(() => gate.classify({ name: "glob", args: {} }), /before the host's parts were up/);
  const ready = gate.ready!();
  await gate.built();
  assert.equal(gate.classify({ name: "glob", args: {} }).decision, "allow");
  const failure = new Error("store");
  startup.reject(failure);
  await assert.rejects(ready, (error) => error === failure);
  assert.equal(builds, 1);
});

Deno.test("deferredCheckpointStore opens on first use and closes only what it opened", async () => {
  let opens = 0;
  let closes = 0;
  const store = deferredCheckpointStore(() => {
    opens++;
    return Promise.resolve({
      record: () => Promise.reject(new Error("unused")),
      list: () => Promise.resolve([]),
      diff: () => Promise.resolve([]),
      restore: () => Promise.reject(new Error("unused")),
      close: () => {
        closes++;
        return Promise.resolve();
      },
    });
  });
  assert.equal(opens, 0);
  assert.deepEqual(await store.list(), []);
  await store.close();
  assert.equal(opens, 1);
  assert.equal(closes, 1);
  const unused = deferredCheckpointStore(() => {
    opens++;
    return Promise.reject(new Error("never"));
  });
  await unused.close();
  await assert.rejects(unused.list(), /closed/);
  assert.equal(opens, 1, "a store closed before use is never opened");
});

/** A finished text turn. */
const OK = {
  message: { role: "assistant", content: "ok" },
  finishReason: "stop",
  usage: { inputTokens: 1, outputTokens: 1 },
} as ModelResponse;

/** Answers every request at once; counts them. */
class CountingModel implements Model {
  requests: ModelRequest[] = [];
  complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    return Promise.resolve({
      message: { role: "assistant", content: "ok" },
      finishReason: "stop",
      usage: { inputTokens: 1, outputTokens: 1 },
    } as ModelResponse);
  }
}

Deno.test("failWithStartup starts the parts only after the request was handed over, and is a pass-through once they are up", async () => {
  const inner = new CountingModel();
  let starts = 0;
  const up = Promise.withResolvers<void>();
  const model = failWithStartup(inner, () => {
    starts++;
    return up.promise;
  });
  const request = { messages: [], tools: [], iteration: 0 };
  const first = model.complete(request);
  assert.equal(inner.requests.length, 1, "the request was handed over");
  assert.equal(starts, 0, "the parts start once the request has left, not at once");
  assert.equal((await first).message.content, "ok");
  // The answer came back: that starts them (this model tells neither response nor delta).
  while (starts === 0) await new Promise((resolve) => setTimeout(resolve, 0));
  up.resolve();
  await up.promise;
  await Promise.resolve();
  await model.complete({ ...request, iteration: 1 });
  assert.equal(inner.requests[1].signal, undefined, "once up, the request is passed on as it is");
});

Deno.test("failWithStartup: the parts start once the provider answered (onResponse), not while the request is still leaving", async () => {
  let told: (() => void) | undefined;
  const answer = Promise.withResolvers<ModelResponse>();
  const inner: Model = {
    complete(request) {
      told = request.onResponse;
      return answer.promise;
    },
  };
  let starts = 0;
  const callerTold: string[] = [];
  const model = failWithStartup(inner, () => {
    starts++;
    return Promise.resolve();
  });
  const first = model.complete({
    messages: [],
    tools: [],
    iteration: 0,
    onResponse: () => callerTold.push("response"),
  });
  // Timer ticks pass (the old rule started the parts on the first); the request is still leaving.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(starts, 0, "the parts started before the provider answered");
  told!();
  assert.equal(starts, 1, "the provider's answer starts the parts");
  assert.deepEqual(callerTold, ["response"], "the caller's own onResponse is still told");
  told!();
  assert.equal(starts, 1, "once");
  answer.resolve(OK);
  await first;
});

Deno.test("failWithStartup: a model that never says the request left still gets its parts started (the fallback)", async () => {
  const answer = Promise.withResolvers<ModelResponse>();
  const inner: Model = { complete: () => answer.promise };
  const started = Promise.withResolvers<void>();
  const model = failWithStartup(inner, () => {
    started.resolve();
    return Promise.resolve();
  });
  const first = model.complete({ messages: [], tools: [], iteration: 0 });
  await started.promise; // the fallback timer started them; the answer has not come
  answer.resolve(OK);
  await first;
});

Deno.test("failWithStartup: after a failed start-up, the next request fails at once with that error", async () => {
  const inner = new CountingModel();
  const failure = new Error("no sandbox");
  const model = failWithStartup(inner, () => Promise.reject(failure));
  // The first request is answered before the start-up failed (a zero-latency model).
  await model.complete({ messages: [], tools: [], iteration: 0 });
  const deadline = Date.now() + 5000;
  let error: unknown;
  while (error === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    error = await model.complete({ messages: [], tools: [], iteration: 1 }).then(
      () => undefined,
      (e) => e,
    );
  }
  assert.equal(error, failure);
});
