/**
 * Issue 12, every writable mount capped: a sandbox's `/dev/shm` is a tmpfs of its own with the
 * configured size cap (2 GB written stop there), and `/dev` itself is read-only but for its
 * device nodes (the host's `/dev` is not mounted: bwrap's `--dev` is a fresh one).
 */
import assert from "node:assert/strict";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { FILL_DEV_SHM, WRITE_DEV } from "./_race_payloads.ts";

const CAP = 16 * 1024 * 1024;
const CONTAINED: Verdict = {
  parts: [{ riskClass: "code_execution", subject: "shm", targets: [] }],
  decision: "allow",
  reason: "contained",
};

sandboxTest(
  "writing 2 GB to /dev/shm in a sandbox stops at its cap; /dev is read-only",
  async () => {
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: { ...f.context, tmpfsMaxBytes: CAP },
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      const fill = await broker.run({
        id: "f",
        name: "shell",
        args: { command: FILL_DEV_SHM },
        verdict: CONTAINED,
      });
      assert.ok(fill.ok, JSON.stringify(fill));
      assert.match(fill.output, /No space left on device/);
      const size = Number(fill.output.match(/size=(\d+)/)?.[1]);
      assert.ok(size > 0 && size <= CAP, `${size} bytes landed in /dev/shm (cap ${CAP})`);
      const dev = await broker.run({
        id: "d",
        name: "shell",
        args: { command: WRITE_DEV },
        verdict: CONTAINED,
      });
      assert.ok(dev.ok, JSON.stringify(dev));
      assert.match(dev.output, /Read-only file system/);
      assert.match(dev.output, /null-ok/, "device nodes still work");
    } finally {
      await broker.close();
    }
  },
);
