import assert from "node:assert/strict";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { assertContained } from "./_check.ts";
import { makeContainmentFixture } from "./_fixture.ts";

/**
 * Control: the containment check is able to fail. The same kinds of attempts run with
 * `sandbox: "none"` (unconfined, against the fixture's own canaries, sentinels and listeners)
 * must each be caught.
 */
const LEAKS: {
  name: string;
  command: (f: Awaited<ReturnType<typeof makeContainmentFixture>>) => string;
  caught: RegExp;
  /** Judge it against a scope with the workspace writable (only the specific check fails). */
  writable?: boolean;
}[] = [
  { name: "a secret read", command: (f) => `cat ${f.odek}/secret.txt`, caught: /leaked/ },
  {
    name: "a sentinel write",
    command: (f) => `echo x >> ${f.out}/sentinel.txt`,
    caught: /changed outside the scope/,
  },
  {
    name: "a loopback connection",
    command: (f) => `echo hi > /dev/tcp/127.0.0.1/${f.port}`,
    caught: /listener was reached/,
  },
  // Unconfined, nothing keeps the files the host runs later read-only or reverts them.
  {
    name: "a planted git hook",
    command: () => "echo 'echo x' > .git/hooks/pre-commit",
    caught: /the protected \.git\/hooks\/pre-commit changed/,
    writable: true,
  },
  {
    name: "an empty placeholder left in a read-only workspace",
    command: () => ": > .odek-placeholder",
    caught: /changed outside the scope|empty placeholder .*\.odek-placeholder/,
  },
  {
    name: "an empty placeholder left where a protected path was mounted",
    command: () => "mkdir .devcontainer",
    caught: /protected \.devcontainer changed|placeholder .*\.devcontainer/,
    writable: true,
  },
];

Deno.test("assertContained() catches a read, a write, a connection, a planted hook and a placeholder made unconfined", async (t) => {
  for (const leak of LEAKS) {
    await t.step(leak.name, async () => {
      await using f = await makeContainmentFixture();
      const broker = new SandboxBroker({
        context: { ...f.context, mode: "none" },
        resolveWorkspace: () => Promise.resolve(f.ws),
        trustLevel: "standard",
      });
      const before = await f.snapshot();
      const hitsBefore = f.hits();
      const verdict = {
        parts: [{ riskClass: "read" as const, subject: "x", targets: [] }],
        decision: "allow" as const,
        reason: "control",
      };
      const result = await broker.run({
        id: "c1",
        name: "shell",
        args: { command: leak.command(f) },
        verdict,
      });
      await broker.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const after = await f.snapshot();
      const scope = {
        readPaths: [f.ws],
        writePaths: leak.writable ? [f.ws] : [],
        network: { type: "none" as const },
        runBinaries: [],
        envNames: [],
      };
      assert.throws(
        () => assertContained(f, leak.name, { result, scope, before, after, hitsBefore }),
        leak.caught,
      );
    });
  }
});
