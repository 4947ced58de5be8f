// The child protocol over the in-memory transport pair: both ends as they run in the core and in
// a tool child, without spawning. A cancel reaches the child and stops the handler; messages are
// validated on receipt at both ends; errors carry typed data.
import assert from "node:assert/strict";
import { z } from "zod";
import { ToolChildClient } from "../../tools/_catalogue/child_client.ts";
import { ToolChildServer, type ToolContext } from "../../tools/_catalogue/child_server.ts";
import { inMemoryTransportPair } from "../../tools/_catalogue/line_transport.ts";
import { type ChildToolEntry, toolEntry } from "../../tools/_catalogue/tool_entry.ts";
import { EgressRefusal } from "../../tools/_catalogue/tool_failure.ts";

function entry(name: string): ChildToolEntry {
  return toolEntry({
    name,
    description: `The test tool ${name}.`,
    category: "compute",
    args: z.strictObject({ n: z.int().default(1) }),
    handler: { module: "unused.ts", export: name },
    rule: { kind: "fixed", class: "read", detail: "a test tool" },
    classWithoutGate: "read",
  });
}

/** A tool that works step by step until its signal aborts, and records how it ended. */
class SlowTool {
  steps = 0;
  #started = Promise.withResolvers<void>();
  #stopped = Promise.withResolvers<unknown>();
  readonly started = this.#started.promise;
  /** Resolves with what stopped the handler. */
  readonly stopped = this.#stopped.promise;

  readonly handler = async (_args: { n: number }, context: ToolContext) => {
    this.#started.resolve();
    try {
      while (true) {
        context.signal.throwIfAborted();
        this.steps++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } catch (error) {
      this.#stopped.resolve(error);
      throw error;
    }
  };
}

/** A core end and a child end joined in memory; `close()` ends both and waits for them. */
function connect(
  handlers: Record<string, (args: { n: number }, context: ToolContext) => unknown>,
  options: { cancelGraceMs?: number; onUnresponsive?: (tool: string) => void } = {},
) {
  const [coreEnd, childEnd] = inMemoryTransportPair();
  const server = new ToolChildServer({
    name: "test",
    entries: Object.keys(handlers).map(entry),
    load: (e) => Promise.resolve(handlers[e.name] as never),
  });
  // Everything the child sends, as the core receives it.
  const sent: { id?: number; ok?: boolean; error?: { kind: string } }[] = [];
  let arrived = Promise.withResolvers<void>();
  const tapped = {
    ...childEnd,
    send: async (line: string) => {
      await childEnd.send(line);
      sent.push(JSON.parse(line));
      arrived.resolve();
    },
  };
  const serving = server.serve(tapped);
  const client = new ToolChildClient(coreEnd, options);
  const listening = client.listen();
  return {
    client,
    /** Wait until the child has sent an answer to call `id`, and return it. */
    async answerTo(id: number) {
      while (!sent.some((m) => m.id === id)) {
        await arrived.promise;
        arrived = Promise.withResolvers<void>();
      }
      return sent.find((m) => m.id === id)!;
    },
    async close() {
      await coreEnd.close();
      await serving;
      await listening;
      client.failAll("closed");
    },
  };
}

Deno.test("a cancelled call stops in the child, which answers that it stopped", async () => {
  const slow = new SlowTool();
  let unresponsive = 0;
  const c = connect({ slow: slow.handler, echo: (a) => String(a.n) }, {
    cancelGraceMs: 60_000,
    onUnresponsive: () => unresponsive++,
  });
  try {
    const controller = new AbortController();
    const call = c.client.call({ tool: "slow", args: {}, workspace: "/" }, {
      signal: controller.signal,
    });
    await slow.started;
    controller.abort();
    assert.deepEqual(await call, { type: "stopped", reason: "aborted" });
    // The cancel reached the child: the handler's signal aborted and the handler stopped.
    const stoppedBy = await slow.stopped;
    assert.ok(stoppedBy instanceof DOMException && stoppedBy.name === "AbortError");
    assert.match(stoppedBy.message, /cancelled \(aborted\)/);
    // The child answered the cancelled call (its acknowledgement), and serves the next one.
    assert.deepEqual((await c.answerTo(1)).error?.kind, "cancelled");
    const steps = slow.steps;
    assert.deepEqual(await c.client.call({ tool: "echo", args: { n: 7 }, workspace: "/" }), {
      type: "ok",
      output: "7",
    });
    assert.equal(slow.steps, steps, "the handler does no more work after it stopped");
    assert.equal(unresponsive, 0, "the child answered the cancel within the grace period");
  } finally {
    await c.close();
  }
});

Deno.test("a call that times out is cancelled in the child with reason timeout", async () => {
  const slow = new SlowTool();
  const c = connect({ slow: slow.handler, echo: (a) => String(a.n) });
  try {
    const outcome = await c.client.call({ tool: "slow", args: {}, workspace: "/" }, {
      timeoutMs: 50,
    });
    assert.deepEqual(outcome, { type: "stopped", reason: "timeout" });
    assert.match(String((await slow.stopped as Error).message), /cancelled \(timeout\)/);
    assert.deepEqual((await c.answerTo(1)).error?.kind, "cancelled");
  } finally {
    await c.close();
  }
});

Deno.test("a handler that ignores its cancel makes the core give up on the child", async () => {
  let release = () => {};
  const started = Promise.withResolvers<void>();
  const stuck = () => {
    started.resolve();
    return new Promise<string>((resolve) => release = () => resolve("late"));
  };
  const gaveUp = Promise.withResolvers<string>();
  const c = connect({ stuck }, { cancelGraceMs: 20, onUnresponsive: gaveUp.resolve });
  try {
    const controller = new AbortController();
    const call = c.client.call({ tool: "stuck", args: {}, workspace: "/" }, {
      signal: controller.signal,
    });
    // Cancelled once it runs (a call cancelled before its handler starts never runs it).
    await started.promise;
    controller.abort();
    assert.equal((await call).type, "stopped");
    assert.equal(await gaveUp.promise, "stuck");
  } finally {
    release();
    await c.close();
  }
});

Deno.test("both ends validate what they receive", async () => {
  const [coreEnd, childEnd] = inMemoryTransportPair();
  const server = new ToolChildServer({
    name: "test",
    entries: [entry("echo")],
    load: () => Promise.resolve((a: { n: number }) => String(a.n)),
  });
  const serving = server.serve(childEnd);
  await coreEnd.send("not json");
  await coreEnd.send(
    JSON.stringify({ type: "call", id: 4, tool: "echo", args: {}, workspace: "rel" }),
  );
  await coreEnd.send(
    JSON.stringify({ type: "call", id: 5, tool: "echo", args: { n: "x" }, workspace: "/" }),
  );
  await coreEnd.send(
    JSON.stringify({ type: "call", id: 6, tool: "nope", args: {}, workspace: "/" }),
  );
  await coreEnd.close();
  const answers = (await Array.fromAsync(coreEnd.receive())).map((line) => JSON.parse(line));
  await serving;
  const byId = (id: number) => answers.find((a) => a.id === id);
  assert.equal(answers.find((a) => a.type === "rejected")?.message.startsWith("Malformed"), true);
  assert.equal(byId(4).error.kind, "invalid_arguments");
  assert.match(byId(4).error.message, /workspace/);
  assert.equal(byId(5).error.kind, "invalid_arguments");
  assert.deepEqual(byId(6).error.kind, "unknown_tool");

  const [core, child] = inMemoryTransportPair();
  const broken: string[] = [];
  const client = new ToolChildClient(core, { onProtocolError: (line) => broken.push(line) });
  const listening = client.listen();
  const call = client.call({ tool: "echo", args: {}, workspace: "/" });
  await child.send(JSON.stringify({ type: "result", id: 1, ok: true, output: 42 }));
  await child.send(JSON.stringify({ type: "result", id: 1, ok: true, output: "42" }));
  assert.deepEqual(await call, { type: "ok", output: "42" });
  assert.equal(broken.length, 1, "an answer that does not fit the schema is a protocol error");
  await child.close();
  await listening;
});

Deno.test("an egress refusal crosses the protocol as fields", async () => {
  const refuse = () => {
    throw new EgressRefusal(new URL("https://[::1]:8443/x"), "words the core never reads");
  };
  const c = connect({ refuse });
  try {
    const outcome = await c.client.call({ tool: "refuse", args: {}, workspace: "/" });
    assert.deepEqual(outcome, {
      type: "error",
      error: {
        kind: "egress_refused",
        message: "words the core never reads",
        url: "https://[::1]:8443/x",
        host: "::1",
        port: 8443,
      },
    });
  } finally {
    await c.close();
  }
});
