import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const NAME = "a shell command cannot see or reach the host's sockets under /run";
// Planting a socket in the host's /run needs root (CI runs as root).
const register = Deno.uid() === 0 ? sandboxTest : (name: string) => {
  console.error(`skipping "${name}": planting a socket in /run needs root`);
  Deno.test({ name, ignore: true, fn() {} });
};

register(NAME, async () => {
  const dir = await Deno.makeTempDir({ dir: "/run", prefix: "odek-test-" });
  const path = join(dir, "canary.sock");
  const listener = Deno.listen({ transport: "unix", path });
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  await using f = await makeSandboxFixture();
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel: "standard",
  });
  try {
    const result = await broker.run({
      id: "c1",
      name: "shell",
      args: { command: `test -S ${path} && echo VISIBLE; ls -A /run; echo checked` },
    });
    assert.ok(result.ok, result.ok ? "" : result.error.message);
    assert.doesNotMatch(result.output, /VISIBLE/);
    assert.match(result.output, /stdout:\nchecked\n/, "/run is an empty tmpfs in the sandbox");
    assert.equal(connections, 0);
  } finally {
    await broker.close();
    listener.close();
    await accepting.catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
