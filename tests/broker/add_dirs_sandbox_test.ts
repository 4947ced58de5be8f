import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { SandboxBroker } from "../../src/broker/sandbox_broker.ts";
import type { ToolResult } from "../../src/broker/tool_broker.ts";
import { validateAddDirs } from "../../src/config/add_dirs.ts";
import type { RiskClass, Verdict } from "../../src/danger/verdict.ts";
import { makeSandboxFixture, sandboxTest } from "../_helpers/sandbox.ts";

function textOf(result: ToolResult): string {
  return result.ok ? result.output : `${result.error.kind}: ${result.error.message}`;
}

function verdict(riskClass: RiskClass, targets: string[] = []): Verdict {
  return { parts: [{ riskClass, subject: "test", targets }], decision: "allow", reason: "test" };
}

/** A sandbox fixture with a writable `cache` and a read-only `ref` directory beside it. */
async function fixtureWithDirs() {
  const f = await makeSandboxFixture();
  const root = dirname(f.workspace);
  const cache = join(root, "cache");
  const ref = join(root, "ref");
  await Deno.mkdir(cache);
  await Deno.mkdir(ref);
  await Deno.writeTextFile(join(ref, "doc.txt"), "reference\n");
  let checks = 0;
  const broker = new SandboxBroker({
    context: f.context,
    resolveWorkspace: () => Promise.resolve(f.workspace),
    resolveAddDirs: () => {
      checks++;
      return validateAddDirs(
        [{ path: cache, readOnly: false }, { path: ref, readOnly: true }],
        [f.odekHome, f.installDir],
      );
    },
    trustLevel: "standard",
  });
  return {
    f,
    cache,
    ref,
    broker,
    checks: () => checks,
    async [Symbol.asyncDispose]() {
      await broker.close();
      await f[Symbol.asyncDispose]();
    },
  };
}

sandboxTest(
  "Added directories are bound at their real paths: a writable one takes writes from shell and write_file, a :ro one only reads",
  async () => {
    await using x = await fixtureWithDirs();
    const shell = await x.broker.run({
      id: "c1",
      name: "shell",
      args: {
        command: `echo built > ${x.cache}/out.txt && cat ${x.ref}/doc.txt && pwd && echo "$OLDPWD"`,
      },
    });
    assert.ok(shell.ok, textOf(shell));
    assert.equal(await Deno.readTextFile(join(x.cache, "out.txt")), "built\n");
    assert.match(textOf(shell), new RegExp(`reference\\n${x.f.workspace}\\n${x.f.workspace}\\n`));

    const refused = await x.broker.run({
      id: "c2",
      name: "shell",
      args: { command: `echo changed > ${x.ref}/doc.txt` },
    });
    assert.equal(refused.ok, false);
    assert.match(textOf(refused), /Read-only file system/);
    assert.equal(await Deno.readTextFile(join(x.ref, "doc.txt")), "reference\n");

    const write = await x.broker.run({
      id: "c3",
      name: "write_file",
      args: { path: join(x.cache, "notes.md"), content: "# notes\n" },
      verdict: verdict("local_write", [join(x.cache, "notes.md")]),
    });
    assert.ok(write.ok, textOf(write));
    assert.equal(await Deno.readTextFile(join(x.cache, "notes.md")), "# notes\n");

    const read = await x.broker.run({
      id: "c4",
      name: "read_file",
      args: { path: join(x.ref, "doc.txt") },
    });
    assert.ok(read.ok, textOf(read));
    assert.match(textOf(read), /^1\|reference/);

    const roWrite = await x.broker.run({
      id: "c5",
      name: "write_file",
      args: { path: join(x.ref, "new.txt"), content: "x" },
      verdict: verdict("local_write", [join(x.ref, "new.txt")]),
    });
    assert.equal(roWrite.ok, false, textOf(roWrite));
    assert.match(textOf(roWrite), /^denied/);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(x.ref))).map((e) => e.name), ["doc.txt"]);
    assert.equal(x.checks(), 5, "the added directories are validated before every call");
  },
);

sandboxTest(
  "A call at read scope cannot write a writable added directory",
  async () => {
    await using x = await fixtureWithDirs();
    const result = await x.broker.run({
      id: "c1",
      name: "shell",
      args: { command: `touch ${x.cache}/sneaky` },
      verdict: verdict("read"),
    });
    assert.equal(result.ok, false, textOf(result));
    assert.deepEqual(await Array.fromAsync(Deno.readDir(x.cache)), []);
  },
);

sandboxTest(
  "An added directory that became invalid mid-run refuses the call as data",
  async () => {
    await using x = await fixtureWithDirs();
    await Deno.remove(x.cache);
    await Deno.symlink(x.f.odekHome, x.cache); // swapped for a link into ODEK_HOME
    const result = await x.broker.run({ id: "c1", name: "shell", args: { command: "true" } });
    assert.equal(result.ok, false);
    assert.match(textOf(result), /^denied: .*added directory .*is a symlink/);
  },
);
