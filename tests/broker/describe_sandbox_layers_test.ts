import assert from "node:assert/strict";
import { describeSandboxLayers } from "../../src/broker/describe_sandbox_layers.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

sandboxTest(
  "describeSandboxLayers() reports the layers of this machine's bwrap sandbox",
  async () => {
    await using f = await makeSandboxFixture();
    const layers = await describeSandboxLayers(f.context);
    assert.deepEqual(layers.map((l) => l.name), [
      "bwrap",
      "seccomp filter",
      "process limit",
      "root secrets hidden",
    ]);
    assert.equal(layers[0].active, true);
    assert.equal(layers[1].active, f.context.seccompFile !== null);
    const limit = layers[2];
    assert.equal(limit.active, Boolean(f.context.pidsCgroup));
    assert.match(limit.detail, limit.active ? /1024 processes/ : /no process limit: \S/);
    const without = await describeSandboxLayers({ ...f.context, pidsCgroup: null });
    assert.match(without[2].detail, /^no process limit: /);
  },
);
