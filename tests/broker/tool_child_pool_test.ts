import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PermissionSet } from "../../src/broker/permission_set.ts";
import { ToolChildPool } from "../../src/broker/tool_child_pool.ts";
import { makeSandboxFixture, type SandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

const SCRIPTED_CHILD_SOURCE = fileURLToPath(new URL("./_scripted_child.ts", import.meta.url));

/**
 * A tools directory of its own beside the fixture's workspace, holding the scripted child: only
 * the tools directory is bound into a tool child's sandbox, and the repository itself may sit
 * under /tmp, which every sandbox replaces.
 */
async function scriptedTools(
  f: SandboxFixture,
): Promise<{ context: SandboxFixture["context"]; entry: string }> {
  const toolsDir = join(f.workspace, "..", "scripted-tools");
  await Deno.mkdir(toolsDir, { recursive: true });
  const entry = join(toolsDir, "scripted_child.ts");
  await Deno.copyFile(SCRIPTED_CHILD_SOURCE, entry);
  await Deno.writeTextFile(join(toolsDir, "deno.json"), "{}\n");
  return { context: { ...f.context, toolsDir }, entry };
}

function scope(workspace: string, writable: boolean): PermissionSet {
  return {
    readPaths: [workspace],
    writePaths: writable ? [workspace] : [],
    network: { type: "none" },
    runBinaries: [],
    envNames: [],
  };
}

sandboxTest(
  "ToolChildPool.call() round-trips write_file, read_file and glob in a bwrap child",
  async () => {
    await using f = await makeSandboxFixture();
    const pool = new ToolChildPool({ context: f.context });
    const options = { set: scope(f.workspace, true), workspace: f.workspace };
    try {
      const written = await pool.call(
        "write_file",
        { path: "src/a.ts", content: "one\ntwo\n" },
        options,
      );
      assert.deepEqual(written, { ok: true, output: "Created src/a.ts: 8 bytes, 2 lines" });
      assert.equal(await Deno.readTextFile(join(f.workspace, "src/a.ts")), "one\ntwo\n");
      const read = await pool.call("read_file", { path: "src/a.ts", offset: 2 }, options);
      assert.deepEqual(read, { ok: true, output: "2|two\n[lines 2-2 of 2 in src/a.ts]" });
      await Deno.writeTextFile(join(f.workspace, "b.md"), "");
      const found = await pool.call("glob", { pattern: "**/*.ts" }, options);
      assert.deepEqual(found, { ok: true, output: "src/a.ts" });
    } finally {
      await pool.close();
    }
  },
);

sandboxTest(
  "ToolChildPool.call() returns denied data when the scope lacks write access",
  async () => {
    await using f = await makeSandboxFixture();
    const pool = new ToolChildPool({ context: f.context });
    try {
      const result = await pool.call("write_file", { path: "a.txt", content: "x" }, {
        set: scope(f.workspace, false),
        workspace: f.workspace,
      });
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.error.kind, "denied");
      assert.match(!result.ok ? result.error.message : "", /write access/);
      await assert.rejects(Deno.stat(join(f.workspace, "a.txt")), Deno.errors.NotFound);
    } finally {
      await pool.close();
    }
  },
);

sandboxTest("ToolChildPool.call() refuses symlinks that lead out of the workspace", async (t) => {
  await using f = await makeSandboxFixture();
  await Deno.symlink(join(f.outside, "secret.txt"), join(f.workspace, "link"));
  await Deno.symlink(f.outside, join(f.workspace, "linkdir"));
  await Deno.symlink(f.odekHome, join(f.workspace, "home_link"));
  const pool = new ToolChildPool({ context: f.context });
  const options = { set: scope(f.workspace, true), workspace: f.workspace };
  try {
    await t.step("read_file of a link to an outside file", async () => {
      const result = await pool.call("read_file", { path: "link" }, options);
      assert.equal(!result.ok && result.error.kind, "denied");
      assert.match(
        !result.ok ? result.error.message : "",
        /link is a symlink pointing to .*secret\.txt, outside the workspace/,
      );
    });
    await t.step("write_file through a symlinked directory", async () => {
      const result = await pool.call(
        "write_file",
        { path: "linkdir/new.txt", content: "x" },
        options,
      );
      assert.equal(!result.ok && result.error.kind, "denied");
      assert.match(!result.ok ? result.error.message : "", /linkdir/);
      await assert.rejects(Deno.stat(join(f.outside, "new.txt")), Deno.errors.NotFound);
    });
    await t.step("write_file through a link into a protected root", async () => {
      const result = await pool.call(
        "write_file",
        { path: "home_link/secret.txt", content: "x" },
        options,
      );
      assert.equal(!result.ok && result.error.kind, "denied");
      assert.equal(await Deno.readTextFile(join(f.odekHome, "secret.txt")), "odek-home-secret\n");
    });
    await t.step("read_file of an absolute path outside", async () => {
      const result = await pool.call(
        "read_file",
        { path: join(f.odekHome, "secret.txt") },
        options,
      );
      assert.equal(!result.ok && result.error.kind, "denied");
    });
  } finally {
    await pool.close();
  }
});

sandboxTest(
  "ToolChildPool.call() reuses one child per scope and runs concurrent calls in it",
  async () => {
    await using f = await makeSandboxFixture();
    const pool = new ToolChildPool({ context: f.context });
    const readOnly = { set: scope(f.workspace, false), workspace: f.workspace };
    const writable = { set: scope(f.workspace, true), workspace: f.workspace };
    try {
      await Deno.writeTextFile(join(f.workspace, "a.txt"), "hello\n");
      const results = await Promise.all(
        Array.from({ length: 20 }, () => pool.call("read_file", { path: "a.txt" }, readOnly)),
      );
      for (const r of results) {
        assert.deepEqual(r, {
          ok: true,
          output: "1|hello\n[lines 1-1 of 1 in a.txt]",
        });
      }
      const first = pool.pidOf(readOnly.set, f.workspace);
      assert.ok(first !== undefined);
      await pool.call("glob", { pattern: "*" }, readOnly);
      assert.equal(pool.pidOf(readOnly.set, f.workspace), first);
      await pool.call("glob", { pattern: "*" }, writable);
      const second = pool.pidOf(writable.set, f.workspace);
      assert.ok(second !== undefined && second !== first);
    } finally {
      await pool.close();
    }
    assert.equal(pool.pidOf(readOnly.set, f.workspace), undefined);
  },
);

sandboxTest("ToolChildPool.call() starts a new child after its child was killed", async () => {
  await using f = await makeSandboxFixture();
  const pool = new ToolChildPool({ context: f.context });
  const options = { set: scope(f.workspace, false), workspace: f.workspace };
  try {
    assert.equal((await pool.call("glob", { pattern: "*" }, options)).ok, true);
    const pid = pool.pidOf(options.set, f.workspace)!;
    Deno.kill(pid, "SIGKILL");
    for (let i = 0; i < 500 && pool.pidOf(options.set, f.workspace) !== undefined; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(pool.pidOf(options.set, f.workspace), undefined, "the pool noticed the death");
    assert.equal((await pool.call("glob", { pattern: "*" }, options)).ok, true);
    const next = pool.pidOf(options.set, f.workspace);
    assert.ok(next !== undefined && next !== pid);
  } finally {
    await pool.close();
  }
});

sandboxTest(
  "ToolChildPool.call() fails pending calls with the stderr tail when the child dies",
  async () => {
    await using f = await makeSandboxFixture();
    const pool = new ToolChildPool(await scriptedTools(f));
    const options = { set: scope(f.workspace, false), workspace: f.workspace };
    try {
      assert.deepEqual(await pool.call("echo", { a: 1 }, options), { ok: true, output: '{"a":1}' });
      const pid = pool.pidOf(options.set, f.workspace);
      const hanging = pool.call("hang", {}, options);
      const crashed = await pool.call("crash", {}, options);
      for (const result of [crashed, await hanging]) {
        assert.equal(!result.ok && result.error.kind, "failed");
        const message = !result.ok ? result.error.message : "";
        assert.match(message, /exited with code 3/);
        assert.match(message, /crashing on purpose/);
      }
      assert.deepEqual(await pool.call("echo", { b: 2 }, options), { ok: true, output: '{"b":2}' });
      assert.notEqual(pool.pidOf(options.set, f.workspace), pid);
    } finally {
      await pool.close();
    }
  },
);

sandboxTest("ToolChildPool.call() kills a child that breaks the protocol", async () => {
  await using f = await makeSandboxFixture();
  const pool = new ToolChildPool(await scriptedTools(f));
  const options = { set: scope(f.workspace, false), workspace: f.workspace };
  try {
    const result = await pool.call("garbage", {}, options);
    assert.equal(!result.ok && result.error.kind, "failed");
    assert.match(
      !result.ok ? result.error.message : "",
      /broke the protocol[\s\S]*this is not json/,
    );
  } finally {
    await pool.close();
  }
});

sandboxTest(
  "ToolChildPool.call() cancels a call that times out or is aborted, in its child",
  async () => {
    await using f = await makeSandboxFixture();
    const pool = new ToolChildPool({
      ...(await scriptedTools(f)),
      callTimeoutMs: 300,
      cancelGraceMs: 300,
    });
    const options = { set: scope(f.workspace, false), workspace: f.workspace };
    const hanging = async () => {
      const result = await pool.call("hanging", {}, options);
      return result.ok ? result.output : JSON.stringify(result);
    };
    try {
      const timedOut = await pool.call("hang", {}, options);
      assert.equal(!timedOut.ok && timedOut.error.kind, "timeout");
      assert.match(
        !timedOut.ok ? timedOut.error.message : "",
        /did not answer within 300 ms/,
      );
      const pid = pool.pidOf(options.set, f.workspace);
      // The child got the cancel and stopped the call: its acknowledgement came first.
      assert.equal(await hanging(), "0");
      const controller = new AbortController();
      const pending = pool.call("hang", {}, { ...options, signal: controller.signal });
      assert.equal(await hanging(), "1");
      controller.abort();
      const aborted = await pending;
      assert.equal(!aborted.ok && aborted.error.kind, "interrupted");
      assert.equal(await hanging(), "0");
      assert.equal(
        pool.pidOf(options.set, f.workspace),
        pid,
        "a child that stops is kept",
      );
    } finally {
      await pool.close();
    }
  },
);

sandboxTest(
  "ToolChildPool.call() kills a child that does not stop a cancelled call",
  async () => {
    await using f = await makeSandboxFixture();
    const pool = new ToolChildPool({
      ...(await scriptedTools(f)),
      cancelGraceMs: 200,
    });
    const options = { set: scope(f.workspace, false), workspace: f.workspace };
    try {
      assert.ok((await pool.call("echo", {}, options)).ok);
      const pid = pool.pidOf(options.set, f.workspace);
      const controller = new AbortController();
      const pending = pool.call("stuck", {}, {
        ...options,
        signal: controller.signal,
      });
      controller.abort();
      const aborted = await pending;
      assert.equal(!aborted.ok && aborted.error.kind, "interrupted");
      const deadline = Date.now() + 15_000;
      while (
        pool.pidOf(options.set, f.workspace) === pid && Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.notEqual(
        pool.pidOf(options.set, f.workspace),
        pid,
        "the stuck child was killed",
      );
      assert.deepEqual(await pool.call("echo", { c: 3 }, options), {
        ok: true,
        output: '{"c":3}',
      });
    } finally {
      await pool.close();
    }
  },
);

Deno.test("ToolChildPool.call() runs a child with Deno flags alone in mode none", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  const pool = new ToolChildPool({ context: f.context });
  try {
    const denied = await pool.call("write_file", { path: "a.txt", content: "x" }, {
      set: scope(f.workspace, false),
      workspace: f.workspace,
    });
    assert.equal(!denied.ok && denied.error.kind, "denied");
    const written = await pool.call("write_file", { path: "a.txt", content: "x" }, {
      set: scope(f.workspace, true),
      workspace: f.workspace,
    });
    assert.equal(written.ok, true);
    await Deno.symlink(join(f.outside, "secret.txt"), join(f.workspace, "link"));
    const escaped = await pool.call("read_file", { path: "link" }, {
      set: scope(f.workspace, true),
      workspace: f.workspace,
    });
    assert.equal(!escaped.ok && escaped.error.kind, "denied");
  } finally {
    await pool.close();
  }
});

Deno.test("ToolChildPool.call() fails as data once the pool is closed", async () => {
  await using f = await makeSandboxFixture({ mode: "none" });
  const pool = new ToolChildPool({ context: f.context });
  await pool.close();
  const result = await pool.call("glob", { pattern: "*" }, {
    set: scope(f.workspace, false),
    workspace: f.workspace,
  });
  assert.equal(!result.ok && result.error.kind, "failed");
});
