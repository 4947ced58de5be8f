/**
 * A directory git would open as a repository of its own (a `HEAD` file beside `objects/` and
 * `refs/`: a bare repository, or files shaped like one) keeps its `config` and hooks the host's:
 * the file tools refuse them, and what contained code writes there is undone after the call.
 * Found by an attack on the protected-files layer: without this, a planted `config` naming
 * `core.fsmonitor` would run on the host at the operator's next git command there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const text = (r: ToolResult) => (r.ok ? r.output : `${r.error.kind}: ${r.error.message}`);
const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

sandboxTest(
  "a planted repository's config is refused by the file tools and undone after contained code",
  async () => {
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      // Through the file tools, one file at a time: the shape first, then its configuration.
      for (
        const [path, content] of [
          ["vendor/lib/HEAD", "ref: refs/heads/main\n"],
          ["vendor/lib/objects/.keep", ""],
          ["vendor/lib/refs/.keep", ""],
        ]
      ) {
        const r = await broker.run({ id: "w", name: "write_file", args: { path, content } });
        assert.ok(r.ok, `${path}: ${text(r)}`);
      }
      const config = await broker.run({
        id: "c",
        name: "write_file",
        args: { path: "vendor/lib/config", content: "[core]\n\tbare = true\n" },
      });
      assert.equal(!config.ok && config.error.kind, "denied", text(config));
      assert.equal(await exists(join(f.workspace, "vendor/lib/config")), false);

      // Through contained code, all at once: the call runs, and its config is removed after it.
      const shaped = await broker.run({
        id: "s",
        name: "shell",
        args: {
          command: "mkdir -p third/objects third/refs third/hooks && " +
            "printf 'ref: refs/heads/main\\n' > third/HEAD && " +
            "printf '[core]\\n\\tbare = true\\n' > third/config && " +
            "printf '#!/bin/sh\\n' > third/hooks/post-checkout && echo planted",
        },
        verdict: {
          parts: [{ riskClass: "local_write", subject: "mkdir", targets: [] }],
          decision: "allow",
          reason: "contained code in the test",
        },
      });
      assert.ok(shaped.ok, text(shaped));
      assert.equal(await exists(join(f.workspace, "third/HEAD")), true, "the rest stays");
      assert.equal(await exists(join(f.workspace, "third/config")), false, "config undone");
      assert.equal(await exists(join(f.workspace, "third/hooks/post-checkout")), false);
      assert.match((shaped.notes ?? []).join("\n"), /odek undid/);
    } finally {
      await broker.close();
    }
  },
);
