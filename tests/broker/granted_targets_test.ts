import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { createMissingTargets, removeUntouched } from "../../src/broker/_granted_targets.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import type { Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

/** The result as the model reads it: odek's notes come after the output, outside it. */
function textOf(result: ToolResult): string {
  const text = result.ok ? result.output : `${result.error.kind}: ${result.error.message}`;
  return [text, ...(result.notes ?? []).map((n) => `[odek] ${n}`)].join("\n");
}

async function tempRoot(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "odek-granted-" }));
}

Deno.test("createMissingTargets() creates a missing target as an empty 0600 file, and no directory", async () => {
  const root = await tempRoot();
  try {
    await Deno.mkdir(join(root, "home"));
    const target = join(root, "home", ".newrc");
    const deep = join(root, "home", ".config", "x", "y");
    const [placeholder, ...rest] = await createMissingTargets([target, deep], []);
    assert.equal(rest.length, 0, "a target whose directory is missing gets no placeholder");
    assert.equal(placeholder.file, target);
    assert.deepEqual(placeholder.dirs, []);
    const info = await Deno.stat(target);
    assert.ok(info.isFile && info.size === 0);
    assert.equal(info.mode! & 0o777, 0o600);
    assert.equal(await exists(join(root, "home/.config")), false, "a directory was created");
    await removeUntouched([placeholder]);
    assert.equal(await exists(target), false, "an untouched placeholder was left");
    assert.equal(await exists(join(root, "home")), true, "removed a directory it did not create");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("createMissingTargets() never creates inside or over a protected root, as written or resolved, and leaves existing targets alone", async () => {
  const root = await tempRoot();
  try {
    const odekHome = join(root, "odek_home");
    await Deno.mkdir(odekHome);
    await Deno.symlink(odekHome, join(root, "alias"));
    await Deno.writeTextFile(join(root, "exists.txt"), "keep");
    const created = await createMissingTargets([
      join(odekHome, "new.txt"),
      join(root, "alias", "sub", "new.txt"),
      join(root, "exists.txt"),
    ], [odekHome]);
    assert.deepEqual(created, []);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(odekHome))).map((e) => e.name), []);
    assert.equal(await Deno.readTextFile(join(root, "exists.txt")), "keep");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("removeUntouched() keeps a placeholder a program wrote to or touched", async () => {
  const root = await tempRoot();
  try {
    const targets = ["written", "touched"].map((name) => join(root, name));
    const placeholders = await createMissingTargets(targets, []);
    assert.equal(placeholders.length, 2);
    await Deno.writeTextFile(targets[0], "x");
    await Deno.utime(targets[1], new Date(), new Date(Date.now() + 5_000));
    await removeUntouched(placeholders);
    for (const target of targets) assert.equal(await exists(target), true, target);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

function systemWrite(target: string, subject: string): Verdict {
  return {
    parts: [{ riskClass: "system_write", subject, targets: [target] }],
    decision: "ask",
    reason: "approved in the test",
  };
}

sandboxTest(
  "An approved system_write on a target that does not exist yet writes that file at its real path, and nothing else",
  async () => {
    await using f = await makeSandboxFixture();
    const home = join(dirname(f.workspace), "home");
    await Deno.mkdir(home);
    await Deno.writeTextFile(join(home, "existing.txt"), "untouched\n");
    const broker = new SandboxBroker({
      context: { ...f.context, home, readOnlyHomeFiles: [] },
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      const rc = join(home, ".newrc");
      const first = await broker.run({
        id: "c1",
        name: "shell",
        args: { command: 'echo x >> ~/.newrc && echo y > "$HOME/existing.txt"' },
        verdict: systemWrite(rc, "echo x >> ~/.newrc"),
      });
      // The second write lands in the sandbox's empty home (a tmpfs), never on the host.
      assert.ok(first.ok, textOf(first));
      assert.equal(await Deno.readTextFile(rc), "x\n");
      assert.equal(await Deno.readTextFile(join(home, "existing.txt")), "untouched\n");

      // A target whose directory is missing is not granted (odek creates no directory the
      // approval did not name): the write fails visibly, and the result says what works.
      const deep = join(home, ".config", "x", "y");
      const second = await broker.run({
        id: "c2",
        name: "shell",
        args: { command: "printf deep > ~/.config/x/y" },
        verdict: systemWrite(deep, "printf deep > ~/.config/x/y"),
      });
      assert.ok(!second.ok, textOf(second));
      assert.match(
        textOf(second),
        /could not grant .*\.config\/x\/y: its directory .* does not exist/,
      );
      assert.match(textOf(second), /--add-dir/);
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(home))).map((e) => e.name).sort(),
        [".newrc", "existing.txt"],
      );

      const idle = await broker.run({
        id: "c3",
        name: "shell",
        args: { command: "true" },
        verdict: systemWrite(join(home, "never"), "true"),
      });
      assert.ok(idle.ok, textOf(idle));
      assert.equal(await exists(join(home, "never")), false, "an unused placeholder was left");
    } finally {
      await broker.close();
    }
  },
);

sandboxTest(
  "A missing granted target inside a writable workspace gets no placeholder: the workspace bind covers it",
  async () => {
    await using f = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => Promise.resolve(f.workspace),
      trustLevel: "standard",
    });
    try {
      const target = join(f.workspace, "build", "out.txt");
      const result = await broker.run({
        id: "c1",
        name: "shell",
        args: { command: "mkdir -p build/out.txt && ls -d build/out.txt" },
        verdict: {
          parts: [
            { riskClass: "local_write", subject: "mkdir", targets: [f.workspace] },
            { riskClass: "destructive", subject: "x", targets: [target] },
          ],
          decision: "ask",
          reason: "test",
        },
      });
      assert.ok(result.ok, textOf(result));
      assert.ok((await Deno.stat(target)).isDirectory, "a placeholder file was bound over it");
    } finally {
      await broker.close();
    }
  },
);
