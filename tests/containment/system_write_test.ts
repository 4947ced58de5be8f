import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { createClassifier } from "../../src/danger/create_classifier.ts";
import { gateToolCalls } from "../../src/loop/gate_tool_calls.ts";
import type { RunContext } from "../../src/loop/run_context.ts";
import { ToolSet } from "../../src/loop/tool_set.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { APPROVE_ALL_BUT_BLOCKED } from "./_suite.ts";
import { makeContainmentFixture } from "./_fixture.ts";

sandboxTest(
  "an approved system_write part (echo x >> ~/.bashrc) writes that file and nothing else",
  async () => {
    await using f = await makeContainmentFixture();
    const classifier = await createClassifier();
    const context = {
      workspace: f.ws,
      home: f.home,
      protectedRoots: f.context.protectedRoots,
      trustLevel: "standard" as const,
    };
    const run = {
      emit() {},
      journal: {}, // no session: nothing is journaled before the approver is asked
      redact: (text: string) => text,
      signal: new AbortController().signal,
    } as unknown as RunContext;
    const command = "echo x >> ~/.bashrc; echo y >> ~/.profile; echo z >> notes.txt; " +
      `echo w >> ${f.out}/sentinel.txt; cat ~/.ssh/id_rsa`;
    const [gated] = await gateToolCalls(run, {
      classify: (call) => classifier.classifyToolCall(call, context),
      approver: APPROVE_ALL_BUT_BLOCKED,
    }, [{
      invocation: { id: "c1", name: "shell", args: { command: "echo x >> ~/.bashrc" } },
      tool: new ToolSet().get("shell")!,
    }]);
    assert.ok("invocation" in gated, "the ~/.bashrc write was approved");
    const verdict = gated.invocation.verdict!;
    assert.deepEqual(
      verdict.parts.filter((p) => p.riskClass === "system_write").map((p) => p.targets),
      [[join(f.home, ".bashrc")]],
    );
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.ws),
      trustLevel: "standard",
    });
    const before = await f.snapshot();
    try {
      // The approved scope runs a longer command than was classified: everything beyond the
      // approved target must fail inside the sandbox.
      const result = await broker.run({ ...gated.invocation, args: { command } });
      const text = result.ok ? result.output : result.error.message;
      assert.ok(!text.includes("CANARY-SSH-KEY"), text);
    } finally {
      await broker.close();
    }
    const after = await f.snapshot();
    const changed = [...new Set([...before.keys(), ...after.keys()])]
      .filter((path) => before.get(path) !== after.get(path))
      .filter((path) =>
        !before.get(path)?.startsWith("dir ") || !after.get(path)?.startsWith("dir ")
      );
    assert.deepEqual(changed, [join(f.home, ".bashrc")]);
    assert.equal(await Deno.readTextFile(join(f.home, ".bashrc")), "# bashrc sentinel\nx\n");
    await assert.rejects(Deno.stat(join(f.home, ".profile")), Deno.errors.NotFound);
  },
);
