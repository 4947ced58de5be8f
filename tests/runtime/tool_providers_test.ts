import assert from "node:assert/strict";
import { z } from "zod";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { ToolProvider } from "../../src/loop/tool_provider.ts";
import type { ToolProviderHost } from "../../src/runtime/tool_provider_source.ts";
import { runtimeFixture } from "./_runtime_fixture.ts";

/** A provider with one `echo_back` tool that answers with its argument. */
function echoProvider(name: string, log: string[]): ToolProvider & AsyncDisposable {
  return {
    name,
    list: () => [{
      name: `${name}__echo_back`,
      description: "Answers with its text.",
      args: z.strictObject({ text: z.string() }),
    }],
    classify: () => ({ kind: "fixed", class: "read", detail: "answers with its argument" }),
    run: (invocation) => {
      log.push(`run ${invocation.name}`);
      return Promise.resolve({ ok: true, output: `echo: ${String(invocation.args.text)}` });
    },
    [Symbol.asyncDispose]: () => {
      log.push(`dispose ${name}`);
      return Promise.resolve();
    },
  };
}

Deno.test("tool providers: the runtime's and the host's tools reach the model, run, and are disposed with the host", async () => {
  const log: string[] = [];
  const seen: ToolProviderHost[] = [];
  await using f = await runtimeFixture({
    scripts: [[
      {
        toolCalls: [
          { id: "c1", name: "shared__echo_back", arguments: { text: "one" } },
          { id: "c2", name: "mine__echo_back", arguments: { text: "two" } },
        ],
      },
      { text: "Both answered." },
    ]],
    runtime: {
      tools: [(host) => {
        seen.push(host);
        return echoProvider("shared", log);
      }],
    },
    config: { trustLevel: "trusted", trustedClasses: ["read"] },
  });
  const workspace = await f.workspace("ws");
  const host = await f.runtime.openSession({ task: "echo twice" }, {
    workspace,
    tools: [echoProvider("mine", log)],
  });
  assert.equal(seen.length, 1);
  assert.equal(seen[0].sessionId, host.sessionId);
  assert.equal(seen[0].workspace, workspace);
  assert.equal(seen[0].signal.aborted, false);
  const run = await host.startRun();
  const outcome = await run.result;
  assert.equal(outcome.type, "completed", JSON.stringify(outcome));
  const specs = f.models[0].requests[0].tools.map((tool) => tool.function.name);
  assert.ok(specs.includes("shell") && specs.includes("shared__echo_back"), specs.join(","));
  assert.ok(specs.includes("mine__echo_back"), specs.join(","));
  const { messages } = await f.runtime.sessions.read(host.sessionId);
  // The two calls run in parallel: their results are journaled as each completes, in any order.
  const results = Object.fromEntries(
    messages.flatMap((m) => m.role === "tool" ? [[m.tool_call_id, String(m.content)]] : []),
  );
  assert.match(results.c1, /echo: one/);
  assert.match(results.c2, /echo: two/);
  await host.close();
  assert.equal(seen[0].signal.aborted, true);
  // Only what the factory made belongs to the host; "mine" was passed as it is and stays ours.
  assert.deepEqual(log.slice(0, 2).sort(), ["run mine__echo_back", "run shared__echo_back"]);
  assert.deepEqual(log.slice(2), ["dispose shared"]);
});

Deno.test("tool providers: a failing factory or a clashing name opens nothing and leaves no session", async (t) => {
  const log: string[] = [];
  await using f = await runtimeFixture({ scripts: [[{ text: "never" }], [{ text: "never" }]] });
  const workspace = await f.workspace("ws");
  await t.step("a factory that throws: the provider made before it is disposed", async () => {
    await assert.rejects(
      f.runtime.openSession({ task: "t" }, {
        workspace,
        tools: [() => echoProvider("first", log), () => {
          throw new OdekError("CONFIG_INVALID", "the server cannot start");
        }],
      }),
      /the server cannot start/,
    );
    assert.deepEqual(log, ["dispose first"]);
    assert.deepEqual(await f.runtime.sessions.list(), []);
    assert.deepEqual(await f.egressDirs(), []);
  });
  await t.step("a provided tool named like a built-in is refused", async () => {
    const shadow: ToolProvider = {
      ...echoProvider("x", log),
      list: () => [{ name: "shell", description: "not the shell", args: z.strictObject({}) }],
    };
    await assert.rejects(
      f.runtime.openSession({ task: "t" }, { workspace, tools: [shadow] }),
      (error) => error instanceof OdekError && error.code === "CONFIG_INVALID",
    );
    assert.deepEqual(await f.runtime.sessions.list(), []);
  });
  await t.step("a source that is neither a provider nor a function is a TypeError", async () => {
    await assert.rejects(
      f.runtime.openSession({ task: "t" }, {
        workspace,
        tools: [{ name: "half" } as unknown as ToolProvider],
      }),
      (error) =>
        error instanceof TypeError && /tools\[0\] must be a tool provider/.test(error.message),
    );
  });
});
