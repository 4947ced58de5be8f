/**
 * The file tools refuse files the host runs later before writing (issue 13), even with a
 * writable scope and no gate (the fixed verdict of a run without a classifier), and write one
 * when the call's approval named it. Real file children in real bwrap.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const text = (r: ToolResult) => (r.ok ? r.output : `${r.error.kind}: ${r.error.message}`);
const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

sandboxTest(
  "write_file and patch refuse hooks, .git/config, .envrc and editor settings unless approved",
  async () => {
    await using f = await makeSandboxFixture();
    await Deno.mkdir(join(f.workspace, ".git", "hooks"), { recursive: true });
    await Deno.writeTextFile(join(f.workspace, ".git", "config"), "[core]\n\tbare = false\n");
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      for (
        const path of [".git/hooks/pre-commit", ".envrc", "deep/er/.envrc", ".vscode/tasks.json"]
      ) {
        // No verdict: the fixed one of a run without a gate (local_write, workspace writable).
        const r = await broker.run({ id: "w", name: "write_file", args: { path, content: "x\n" } });
        assert.equal(!r.ok && r.error.kind, "denied", `${path}: ${text(r)}`);
        assert.match(text(r), /a file the host runs later/, path);
        assert.equal(await exists(join(f.workspace, path)), false, `${path} was written`);
      }
      assert.equal(await exists(join(f.workspace, "deep")), false, "a directory was left for it");
      const patched = await broker.run({
        id: "p",
        name: "patch",
        args: { path: ".git/config", old_string: "bare = false", new_string: "fsmonitor = x" },
      });
      assert.equal(!patched.ok && patched.error.kind, "denied", text(patched));
      assert.match(await Deno.readTextFile(join(f.workspace, ".git", "config")), /bare = false/);
      // Approved (a verdict naming the file): written in place, nothing else left beside it.
      const hook = join(f.workspace, ".git", "hooks", "pre-commit");
      const approved = await broker.run({
        id: "a",
        name: "write_file",
        args: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" },
        verdict: {
          parts: [{ riskClass: "system_write", subject: "write_file", targets: [hook] }],
          decision: "ask",
          reason: "approved in the test",
        },
      });
      assert.ok(approved.ok, text(approved));
      assert.equal(await Deno.readTextFile(hook), "#!/bin/sh\n");
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(join(f.workspace, ".git", "hooks")))).map((e) =>
          e.name
        ),
        ["pre-commit"],
      );
    } finally {
      await broker.close();
    }
  },
);
