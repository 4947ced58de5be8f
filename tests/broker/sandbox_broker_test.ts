import assert from "node:assert/strict";
import { join } from "node:path";
import { OdekError } from "../../src/_util/odek_error.ts";
import type { SandboxContext } from "../../src/broker/render_sandbox.ts";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { processesAppear, survivorsOf, uniqueSleep } from "./_processes.ts";

const NOWHERE: Omit<SandboxContext, "workspace"> = {
  mode: "none",
  bwrapPath: null,
  denoPath: Deno.execPath(),
  denoDir: "/nonexistent",
  toolsDir: "/nonexistent",
  home: "/nonexistent",
  odekHome: "/nonexistent",
  installDir: "/nonexistent",
  protectedRoots: [],
  readOnlyHomeFiles: [],
};

function kindOf(result: ToolResult): string {
  return result.ok ? "ok" : result.error.kind;
}

function textOf(result: ToolResult): string {
  return result.ok ? result.output : result.error.message;
}

Deno.test("SandboxBroker.run() refuses unknown tools and invalid arguments before anything starts", async () => {
  const broker = new SandboxBroker({
    context: NOWHERE,
    resolveWorkspace: () => Promise.reject(new Error("must not be called")),
    trustLevel: "standard",
  });
  try {
    const unknown = await broker.run({ id: "c1", name: "launch_rocket", args: {} });
    assert.equal(kindOf(unknown), "unknown_tool");
    assert.match(
      textOf(unknown),
      /launch_rocket.*the tools are read_file, write_file, .*glob.*shell/,
    );
    const invalid = await broker.run({ id: "c2", name: "read_file", args: { offset: 2 } });
    assert.equal(kindOf(invalid), "invalid_arguments");
    assert.match(textOf(invalid), /path/);
  } finally {
    await broker.close();
  }
});

Deno.test("SandboxBroker.run() turns an invalid workspace into a denial and rethrows other faults", async () => {
  const invalid = new SandboxBroker({
    context: NOWHERE,
    resolveWorkspace: () =>
      Promise.reject(
        new OdekError("WORKSPACE_INVALID", "The workspace /x is a symlink: use its target"),
      ),
    trustLevel: "standard",
  });
  const result = await invalid.run({ id: "c1", name: "shell", args: { command: "true" } });
  assert.equal(kindOf(result), "denied");
  assert.match(textOf(result), /is a symlink/);
  await invalid.close();
  const broken = new SandboxBroker({
    context: NOWHERE,
    resolveWorkspace: () => Promise.reject(new TypeError("boom")),
    trustLevel: "standard",
  });
  await assert.rejects(broken.run({ id: "c2", name: "glob", args: { pattern: "*" } }), TypeError);
  await broken.close();
});

Deno.test("SandboxBroker.run() lets an untrusted run read but not write or execute", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  await Deno.writeTextFile(join(f.workspace, "a.txt"), "hi\n");
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel: "untrusted",
  });
  try {
    const read = await broker.run({ id: "c1", name: "read_file", args: { path: "a.txt" } });
    assert.equal(kindOf(read), "ok", textOf(read));
    const write = await broker.run({
      id: "c2",
      name: "write_file",
      args: { path: "b.txt", content: "x" },
    });
    assert.equal(kindOf(write), "denied");
    const shell = await broker.run({ id: "c3", name: "shell", args: { command: "touch c.txt" } });
    assert.equal(kindOf(shell), "denied");
    assert.match(textOf(shell), /untrusted/);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(f.workspace))).map((e) => e.name), [
      "a.txt",
    ]);
  } finally {
    await broker.close();
  }
});

sandboxTest(
  "SandboxBroker.run() writes, reads, globs and runs shell commands in the workspace",
  async () => {
    await using f = await makeSandboxFixture();
    let resolved = 0;
    const broker = new SandboxBroker({
      context: f.context,
      resolveWorkspace: () => {
        resolved++;
        return Promise.resolve(f.workspace);
      },
      trustLevel: "standard",
    });
    try {
      const write = await broker.run({
        id: "c1",
        name: "write_file",
        args: { path: "notes/a.txt", content: "hello\n" },
      });
      assert.equal(kindOf(write), "ok", textOf(write));
      const read = await broker.run({ id: "c2", name: "read_file", args: { path: "notes/a.txt" } });
      assert.equal(textOf(read), "1|hello\n[lines 1-1 of 1 in notes/a.txt]");
      const glob = await broker.run({ id: "c3", name: "glob", args: { pattern: "**/*.txt" } });
      assert.equal(textOf(glob), "notes/a.txt");
      const shell = await broker.run({
        id: "c4",
        name: "shell",
        args: { command: `cat notes/a.txt && ls -A ${f.installDir} ${f.odekHome}` },
      });
      assert.equal(kindOf(shell), "ok", textOf(shell));
      assert.ok(textOf(shell).includes("stdout:\nhello\n"));
      assert.ok(!textOf(shell).includes("sentinel") && !textOf(shell).includes("secret.txt"));
      assert.equal(resolved, 4, "the workspace is resolved before every call");
    } finally {
      await broker.close();
    }
  },
);

sandboxTest("SandboxBroker.run() honours a shell call's timeout_seconds", async () => {
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
      args: { command: "sleep 30", timeout_seconds: 1 },
    });
    assert.equal(kindOf(result), "timeout");
    assert.match(textOf(result), /timed out after 1000 ms/);
  } finally {
    await broker.close();
  }
});

sandboxTest("SandboxBroker.close() kills a shell command in flight", async () => {
  await using f = await makeSandboxFixture();
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    trustLevel: "standard",
  });
  const marker = uniqueSleep();
  const pending = broker.run({ id: "c1", name: "shell", args: { command: marker } });
  // Closed while the command runs (not before it started): wait for its process, never a sleep.
  assert.notDeepEqual(await processesAppear(marker), [], "the command never started");
  await broker.close();
  assert.equal(kindOf(await pending), "interrupted");
  assert.deepEqual(await survivorsOf(marker), [], "close() left the command running");
  const after = await broker.run({ id: "c2", name: "shell", args: { command: "true" } });
  assert.equal(kindOf(after), "failed");
});

sandboxTest(
  "SandboxBroker.prepare() starts no file-tool child: each starts with the first call of its scope",
  async () => {
    await using fx = await makeSandboxFixture();
    const broker = new SandboxBroker({
      context: fx.context,
      resolveWorkspace: () => Promise.resolve(fx.workspace),
      trustLevel: "standard",
    });
    // This fixture's own children: their flags name its private workspace.
    const fileChildren = async () => {
      const { stdout } = await new Deno.Command("ps", { args: ["-eo", "args"], stdout: "piped" })
        .output();
      return new TextDecoder().decode(stdout).split("\n").filter((line) =>
        line.startsWith(`${fx.context.denoPath} run`) && line.includes("tools/files.ts") &&
        line.includes(`--allow-read=${fx.workspace}`)
      );
    };
    try {
      broker.prepare();
      await Deno.writeTextFile(join(fx.workspace, "a.txt"), "hi\n");
      // A shell call's sandbox starts and ends in between: whatever prepare() started would be
      // running by now.
      const shell = await broker.run({ id: "c0", name: "shell", args: { command: "true" } });
      assert.ok(shell.ok, textOf(shell));
      assert.deepEqual(await fileChildren(), []);
      const read = await broker.run({ id: "c1", name: "read_file", args: { path: "a.txt" } });
      assert.ok(read.ok, textOf(read));
      assert.equal((await fileChildren()).length, 1, "the read scope's child serves the call");
      const again = await broker.run({ id: "c2", name: "read_file", args: { path: "a.txt" } });
      assert.ok(again.ok, textOf(again));
      assert.equal((await fileChildren()).length, 1, "the same scope reuses its child");
    } finally {
      await broker.close();
    }
  },
);
