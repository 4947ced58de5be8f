import assert from "node:assert/strict";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { sandboxTest } from "../_helpers/sandbox.ts";
import { makeContainmentFixture } from "./_fixture.ts";

const READ = {
  parts: [{ riskClass: "read" as const, subject: "x", targets: [] }],
  decision: "allow" as const,
  reason: "forced",
};

sandboxTest(
  "nothing carries over from one shell command to the next (files, processes)",
  async () => {
    await using f = await makeContainmentFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.ws),
      trustLevel: "standard",
    });
    const marker = `sleep 4243.${crypto.randomUUID().slice(0, 8).replace(/\D/g, "1")}`;
    try {
      const shell = (command: string) =>
        broker.run({ id: "c", name: "shell", args: { command }, verdict: READ });
      const first = await shell(
        `echo carried > /tmp/carry; echo carried > ~/carry; (setsid ${marker} >/dev/null 2>&1 &); echo planted`,
      );
      assert.ok(first.ok && first.output.includes("planted"), JSON.stringify(first));
      broker.prepare(); // the next command runs in a spare started now
      const second = await shell(
        `cat /tmp/carry ~/carry 2>&1; ps -eo args 2>/dev/null | grep -c '^${marker}' || true`,
      );
      const text = second.ok ? second.output : second.error.message;
      assert.doesNotMatch(text, /^carried$/m, "a file carried over");
      assert.match(text, /No such file or directory[\s\S]*\n0\n/, text);
    } finally {
      await broker.close();
    }
  },
);
