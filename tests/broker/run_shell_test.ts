import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import type { SandboxContext } from "../../src/broker/render_sandbox.ts";
import { runShell } from "../../src/broker/run_shell.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";
import { survivorsOf, uniqueSleep } from "./_processes.ts";

function scope(workspace: string, writable = true): PermissionSet {
  return {
    readPaths: [workspace],
    writePaths: writable ? [workspace] : [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
  };
}

/** The text of a result, whether it succeeded or not. */
function textOf(result: ToolResult): string {
  return result.ok ? result.output : result.error.message;
}

sandboxTest(
  "runShell() replays the install-dir incident inside the workspace, leaving the install untouched",
  async () => {
    await using f = await makeSandboxFixture();
    const before = Deno.cwd();
    Deno.chdir(f.installDir); // were the command to run in odek's cwd, it would destroy the fixture
    try {
      const result = await runShell(
        "mkdir -p data && echo x > data/f && cat data/f && rm -rf data",
        {
          set: scope(f.workspace),
          context: f.context,
          timeoutMs: 30_000,
        },
      );
      assert.equal(result.ok, true, textOf(result));
      assert.match(textOf(result), /^exit code 0 · \d+ ms\nstdout:\nx\n$/);
    } finally {
      Deno.chdir(before);
    }
    assert.equal(
      await Deno.readTextFile(join(f.installDir, "data", "sentinel")),
      "install-sentinel\n",
    );
    assert.equal(await Deno.readTextFile(join(f.odekHome, "secret.txt")), "odek-home-secret\n");
    assert.deepEqual(await Array.fromAsync(Deno.readDir(f.workspace)), []);
  },
);

sandboxTest(
  "runShell() cannot read ODEK_HOME, the real home, or a file outside through a symlink",
  async () => {
    await using f = await makeSandboxFixture();
    const probe = join(f.context.home, `.odek-sandbox-probe-${crypto.randomUUID()}`);
    await Deno.writeTextFile(probe, "real-home-secret\n");
    // A link to the real home (hidden under an empty tmpfs). The host's /tmp, where `outside`
    // lives, is visible read-only to programs: odek hides secrets, not /tmp.
    await Deno.symlink(probe, join(f.workspace, "link"));
    try {
      const command = [
        `cat ${f.odekHome}/secret.txt`,
        `cat ${probe}`,
        "cat link",
        `umount ${f.context.home}`, // capabilities are dropped: the home's tmpfs cannot be undone
        `cat ${probe}`,
        `ls -A ${f.installDir}`,
        "echo done",
      ].join("; ");
      const result = await runShell(command, {
        set: scope(f.workspace),
        context: f.context,
        timeoutMs: 30_000,
      });
      const text = textOf(result);
      assert.match(text, /stdout:\ndone\n/); // ls of the hidden install dir printed nothing
      for (const secret of ["odek-home-secret", "real-home-secret"]) {
        assert.ok(!text.includes(secret), `${secret} leaked:\n${text}`);
      }
    } finally {
      await Deno.remove(probe);
    }
  },
);

sandboxTest("runShell() kills a backgrounded grandchild on timeout", async () => {
  await using f = await makeSandboxFixture();
  const marker = uniqueSleep();
  const result = await runShell(`${marker} & echo started; wait`, {
    set: scope(f.workspace),
    context: f.context,
    timeoutMs: 1_500,
  });
  assert.equal(!result.ok && result.error.kind, "timeout");
  assert.match(textOf(result), /^timed out after 1500 ms: .* killed · \d+ ms\nstdout:\nstarted\n/);
  assert.deepEqual(await survivorsOf(marker), []);
});

sandboxTest("runShell() ends background processes when the command ends", async () => {
  await using f = await makeSandboxFixture();
  const marker = uniqueSleep();
  const result = await runShell(`${marker} & echo bg`, {
    set: scope(f.workspace),
    context: f.context,
    timeoutMs: 30_000,
  });
  assert.equal(result.ok, true, textOf(result));
  assert.deepEqual(await survivorsOf(marker), []);
});

sandboxTest(
  "runShell() stops on abort, even right after the spawn, and leaves nothing running",
  async () => {
    await using f = await makeSandboxFixture();
    const marker = uniqueSleep();
    for (let i = 0; i < 10; i++) {
      const controller = new AbortController();
      const pending = runShell(marker, {
        set: scope(f.workspace),
        context: f.context,
        timeoutMs: 30_000,
        signal: controller.signal,
      });
      if (i % 2 === 1) await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort();
      const result = await pending;
      assert.equal(!result.ok && result.error.kind, "interrupted");
    }
    assert.deepEqual(await survivorsOf(marker), []);
  },
);

sandboxTest("runShell() has no network, even with an approved (proxy) network part", async () => {
  await using f = await makeSandboxFixture();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted = listener.accept().then((conn) => {
    conn.close();
    return true;
  }, () => false);
  try {
    for (
      const network of [{ type: "none" as const }, { type: "proxy" as const, allowDomains: [] }]
    ) {
      const result = await runShell(
        `exec 3<>/dev/tcp/127.0.0.1/${listener.addr.port} && echo connected`,
        { set: { ...scope(f.workspace), network }, context: f.context, timeoutMs: 30_000 },
      );
      assert.equal(!result.ok && result.error.kind, "failed");
      assert.ok(!textOf(result).includes("connected"));
    }
  } finally {
    listener.close();
  }
  assert.equal(await accepted, false, "the listener saw a connection");
});

sandboxTest("runShell() gives the command no inherited environment variable", async () => {
  await using f = await makeSandboxFixture();
  Deno.env.set("FOO_TOKEN", "sekrit-foo-token");
  try {
    const result = await runShell("env", {
      set: scope(f.workspace),
      context: f.context,
      timeoutMs: 30_000,
    });
    const text = textOf(result);
    assert.ok(!text.includes("FOO_TOKEN") && !text.includes("sekrit"), text);
    assert.match(text, new RegExp(`\\nPWD=${f.workspace}\\n`));
    assert.match(text, new RegExp(`\\nOLDPWD=${f.workspace}\\n`));
  } finally {
    Deno.env.delete("FOO_TOKEN");
  }
});

sandboxTest("runShell() cannot write a workspace the scope leaves read-only", async () => {
  await using f = await makeSandboxFixture();
  const result = await runShell("touch made-it", {
    set: scope(f.workspace, false),
    context: f.context,
    timeoutMs: 30_000,
  });
  assert.equal(!result.ok && result.error.kind, "failed");
  assert.match(textOf(result), /Read-only file system/);
  await assert.rejects(Deno.stat(join(f.workspace, "made-it")), Deno.errors.NotFound);
});

sandboxTest(
  "runShell() caps each stream, keeping the head and counting what it dropped",
  async () => {
    await using f = await makeSandboxFixture();
    const result = await runShell("head -c 5000 /dev/zero | tr '\\0' a; echo oops >&2", {
      set: scope(f.workspace),
      context: f.context,
      timeoutMs: 30_000,
      maxStreamBytes: 1000,
    });
    const text = textOf(result);
    assert.equal(result.ok, true, text);
    assert.ok(
      text.includes(`stdout:\n${"a".repeat(1000)}\n[4000 more bytes of stdout dropped`),
      text,
    );
    assert.match(text, /stderr:\noops\n$/);
  },
);

sandboxTest("runShell() reports an exit code as failed and silence as (no output)", async () => {
  await using f = await makeSandboxFixture();
  const options = { set: scope(f.workspace), context: f.context, timeoutMs: 30_000 };
  const failed = await runShell("exit 3", options);
  assert.equal(!failed.ok && failed.error.kind, "failed");
  assert.match(textOf(failed), /^exit code 3 · \d+ ms\n\(no output\)\n$/);
  const quiet = await runShell("true", options);
  assert.equal(quiet.ok, true);
  assert.match(textOf(quiet), /^exit code 0 · \d+ ms\n\(no output\)\n$/);
});

Deno.test("runShell() refuses to run without bwrap in bwrap mode", async () => {
  const context: SandboxContext = {
    mode: "bwrap",
    bwrapPath: null,
    denoPath: Deno.execPath(),
    denoDir: "/nonexistent",
    toolsDir: "/nonexistent",
    workspace: "/nonexistent/ws",
    home: "/nonexistent",
    odekHome: "/nonexistent",
    installDir: "/nonexistent",
    protectedRoots: [],
    readOnlyHomeFiles: [],
  };
  const result = await runShell("echo hi", {
    set: scope("/nonexistent/ws"),
    context,
    timeoutMs: 1000,
  });
  assert.equal(!result.ok && result.error.kind, "sandbox_unavailable");
  assert.match(textOf(result), /apt-get install bubblewrap/);
  assert.match(textOf(result), /"sandbox" to "docker" .* or "none"/);
});

Deno.test("runShell() in mode none clears the environment and kills the whole group on timeout", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  const marker = uniqueSleep();
  Deno.env.set("FOO_TOKEN", "sekrit-foo-token");
  try {
    const result = await runShell(`env; ${marker} & wait`, {
      set: scope(f.workspace),
      context: f.context,
      timeoutMs: 1_000,
    });
    assert.equal(!result.ok && result.error.kind, "timeout");
    assert.ok(!textOf(result).includes("FOO_TOKEN"));
    assert.match(textOf(result), new RegExp(`\\nPWD=${f.workspace}\\n`));
  } finally {
    Deno.env.delete("FOO_TOKEN");
  }
  assert.deepEqual(await survivorsOf(marker), []);
});

Deno.test("runShell() returns interrupted without starting anything when already aborted", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  const controller = new AbortController();
  controller.abort();
  const result = await runShell("touch started", {
    set: scope(f.workspace),
    context: f.context,
    timeoutMs: 1_000,
    signal: controller.signal,
  });
  assert.equal(!result.ok && result.error.kind, "interrupted");
  await assert.rejects(Deno.stat(join(f.workspace, "started")), Deno.errors.NotFound);
});

sandboxTest(
  "runShell() (bwrap): the deno binary odek runs with works inside the sandbox",
  async () => {
    await using fx = await makeSandboxFixture();
    const result = await runShell(`"${fx.context.denoPath}" --version`, {
      set: scope(fx.workspace),
      context: fx.context,
      timeoutMs: 30_000,
    });
    assert.ok(result.ok, textOf(result));
    assert.ok(textOf(result).includes(`deno ${Deno.version.deno}`), textOf(result));
    if (fx.context.denoDir.startsWith(`${fx.context.home}/`)) {
      // Only the binary: its cache (DENO_DIR, in the hidden home) stays out of programs' reach.
      const cache = await runShell(`ls "${fx.context.denoDir}"`, {
        set: scope(fx.workspace),
        context: fx.context,
        timeoutMs: 30_000,
      });
      assert.equal(cache.ok, false, textOf(cache));
    }
  },
);
