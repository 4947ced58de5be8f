// The file tools of tools/ run in-process here, without a sandbox: their own logic (limits,
// formats, realpath containment). tool_child_pool_test.ts runs them as real sandboxed children.
import assert from "node:assert/strict";
import { join } from "node:path";
import { glob as globHandler } from "../../tools/_glob.ts";
import { ToolFailure } from "../../tools/_catalogue/tool_failure.ts";
import { readFile as readFileHandler } from "../../tools/_read_file.ts";
import { writeFile as writeFileHandler } from "../../tools/_write_file.ts";
import { fileToolServer } from "../../tools/files.ts";
import { viaCatalogue } from "./_workspace.ts";

const glob = viaCatalogue("glob", globHandler);
const readFile = viaCatalogue("read_file", readFileHandler);
const writeFile = viaCatalogue("write_file", writeFileHandler);

async function withWorkspace(fn: (ws: string, outside: string) => Promise<void>): Promise<void> {
  const ws = await Deno.realPath(await Deno.makeTempDir());
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    await fn(ws, outside);
  } finally {
    await Deno.remove(ws, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
}

function failsWith(kind: string, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ToolFailure, String(error));
    assert.equal(error.kind, kind);
    assert.match(error.message, pattern);
    return true;
  };
}

Deno.test("readFile() numbers lines, honours offset and limit and tells where to read on", async () => {
  await withWorkspace(async (ws) => {
    await Deno.writeTextFile(join(ws, "a.txt"), "one\r\ntwo\nthree\nfour\n");
    assert.equal(
      await readFile(ws, { path: "a.txt", offset: 2, limit: 2 }),
      "2|two\n3|three\n[lines 2-3 of 4 in a.txt; read on with offset=4]",
    );
    assert.equal(
      await readFile(ws, { path: join(ws, "a.txt") }),
      "1|one\n2|two\n3|three\n4|four\n[lines 1-4 of 4 in " + join(ws, "a.txt") + "]",
    );
    await Deno.writeTextFile(join(ws, "empty.txt"), "");
    assert.equal(await readFile(ws, { path: "empty.txt" }), "(empty.txt is empty: 0 lines)");
    await assert.rejects(
      readFile(ws, { path: "a.txt", offset: 9 }),
      failsWith("invalid_arguments", /offset 9 is past the end of a.txt, which has 4 lines/),
    );
  });
});

Deno.test("readFile() refuses binary files, directories and missing files with a reason", async () => {
  await withWorkspace(async (ws) => {
    await Deno.writeFile(join(ws, "nul.bin"), new Uint8Array([0x68, 0x69, 0x00, 0x68]));
    await assert.rejects(
      readFile(ws, { path: "nul.bin" }),
      failsWith("failed", /binary \(a NUL byte at offset 2; 4 bytes\)/),
    );
    await Deno.writeFile(join(ws, "ctl.bin"), new Uint8Array(100).fill(0x01));
    await assert.rejects(
      readFile(ws, { path: "ctl.bin" }),
      failsWith("failed", /100% control bytes/),
    );
    await Deno.writeTextFile(join(ws, "utf8.txt"), "héllo 日本語\n".repeat(50));
    assert.match(await readFile(ws, { path: "utf8.txt" }), /^1\|héllo 日本語\n/);
    await Deno.mkdir(join(ws, "dir"));
    await assert.rejects(
      readFile(ws, { path: "dir" }),
      failsWith("failed", /is a directory: list it with glob/),
    );
    await assert.rejects(readFile(ws, { path: "nope.txt" }), failsWith("failed", /does not exist/));
  });
});

Deno.test("readFile() stops at 1 MiB of output", async () => {
  await withWorkspace(async (ws) => {
    await Deno.writeTextFile(join(ws, "wide.txt"), `${"x".repeat(999)}\n`.repeat(2000));
    const out = await readFile(ws, { path: "wide.txt", limit: 2000 });
    assert.ok(new TextEncoder().encode(out).length <= 1024 * 1024 + 200);
    assert.match(
      out,
      /\[lines 1-(\d+) of 2000 in wide\.txt; output cut at 1 MiB; read on with offset=\d+\]$/,
    );
    await Deno.writeTextFile(join(ws, "long.txt"), "y".repeat(2 * 1024 * 1024));
    const long = await readFile(ws, { path: "long.txt" });
    assert.match(
      long,
      /\[line cut at 1 MiB\]\n\[lines 1-1 of 1 in long\.txt; output cut at 1 MiB\]$/,
    );
  });
});

Deno.test("readFile() refuses paths and symlinks that lead out of the workspace", async () => {
  await withWorkspace(async (ws, outside) => {
    await Deno.writeTextFile(join(outside, "secret.txt"), "s");
    await Deno.symlink(join(outside, "secret.txt"), join(ws, "link"));
    await Deno.symlink(outside, join(ws, "dirlink"));
    await Deno.symlink(join(outside, "missing.txt"), join(ws, "dangling"));
    const points = new RegExp(`pointing to ${outside}`);
    await assert.rejects(
      readFile(ws, { path: "link" }),
      failsWith("denied", /link is a symlink pointing to/),
    );
    await assert.rejects(
      readFile(ws, { path: "dirlink/secret.txt" }),
      failsWith("denied", /goes through the symlink/),
    );
    await assert.rejects(readFile(ws, { path: "dangling" }), failsWith("denied", points));
    await assert.rejects(
      readFile(ws, { path: "../x" }),
      failsWith("denied", /outside the workspace/),
    );
    await assert.rejects(
      readFile(ws, { path: join(outside, "secret.txt") }),
      failsWith("denied", /outside/),
    );
  });
});

Deno.test("writeFile() writes atomically, creates parents, keeps modes and writes through inside links", async () => {
  await withWorkspace(async (ws) => {
    assert.equal(
      await writeFile(ws, { path: "a/b/c.txt", content: "hi\n" }),
      "Created a/b/c.txt: 3 bytes, 1 line",
    );
    assert.equal((await Deno.stat(join(ws, "a/b/c.txt"))).mode! & 0o777, 0o644);
    await Deno.chmod(join(ws, "a/b/c.txt"), 0o600);
    assert.equal(
      await writeFile(ws, { path: "a/b/c.txt", content: "x\ny" }),
      "Replaced a/b/c.txt: 3 bytes, 2 lines",
    );
    assert.equal((await Deno.stat(join(ws, "a/b/c.txt"))).mode! & 0o777, 0o600);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(join(ws, "a/b")))).map((e) => e.name), [
      "c.txt",
    ]);
    await Deno.symlink(join(ws, "a/b/c.txt"), join(ws, "inside-link"));
    await writeFile(ws, { path: "inside-link", content: "via link" });
    assert.equal(await Deno.readTextFile(join(ws, "a/b/c.txt")), "via link");
    assert.ok((await Deno.lstat(join(ws, "inside-link"))).isSymlink);
  });
});

Deno.test("writeFile() refuses directories, oversized content and every way out of the workspace", async () => {
  await withWorkspace(async (ws, outside) => {
    await Deno.mkdir(join(ws, "dir"));
    await assert.rejects(
      writeFile(ws, { path: "dir", content: "" }),
      failsWith("failed", /is a directory/),
    );
    await assert.rejects(
      writeFile(ws, { path: "big", content: "z".repeat(1024 * 1024 + 1) }),
      failsWith("invalid_arguments", /more than the 1 MiB/),
    );
    await Deno.symlink(outside, join(ws, "dirlink"));
    await Deno.symlink(join(outside, "new.txt"), join(ws, "dangling"));
    await assert.rejects(
      writeFile(ws, { path: "dirlink/x/y.txt", content: "" }),
      failsWith("denied", /dirlink/),
    );
    await assert.rejects(
      writeFile(ws, { path: "dangling", content: "" }),
      failsWith("denied", /dangling/),
    );
    await assert.rejects(
      writeFile(ws, { path: "../escape.txt", content: "" }),
      failsWith("denied", /outside/),
    );
    assert.deepEqual(
      await Array.fromAsync(Deno.readDir(outside)),
      [],
      "nothing was created outside",
    );
  });
});

Deno.test("glob() lists sorted matches, skips .git and node_modules and never enters symlinked directories", async () => {
  await withWorkspace(async (ws, outside) => {
    for (
      const path of [
        "src/b.ts",
        "src/a.ts",
        "src/deep/c.ts",
        ".git/x.ts",
        "node_modules/m/i.ts",
        "README.md",
      ]
    ) {
      await Deno.mkdir(join(ws, path, ".."), { recursive: true });
      await Deno.writeTextFile(join(ws, path), "");
    }
    await Deno.writeTextFile(join(outside, "far.ts"), "");
    await Deno.symlink(outside, join(ws, "src", "ext"));
    assert.equal(await glob(ws, { pattern: "**/*.ts" }), "src/a.ts\nsrc/b.ts\nsrc/deep/c.ts");
    assert.equal(await glob(ws, { pattern: "*.ts", path: "src" }), "src/a.ts\nsrc/b.ts");
    assert.equal(await glob(ws, { pattern: "*.rs" }), "(no files under . match *.rs)");
    await assert.rejects(glob(ws, { pattern: "../*" }), failsWith("invalid_arguments", /\.\./));
    await assert.rejects(
      glob(ws, { pattern: "*", path: "src/ext" }),
      failsWith("denied", /symlink/),
    );
    await assert.rejects(
      glob(ws, { pattern: "*", path: "README.md" }),
      failsWith("failed", /not a directory/),
    );
  });
});

Deno.test("glob() lists at most 1000 matches and says how many there were", async () => {
  await withWorkspace(async (ws) => {
    for (let i = 0; i < 1005; i++) {
      await Deno.writeTextFile(join(ws, `f${String(i).padStart(4, "0")}.txt`), "");
    }
    const lines = (await glob(ws, { pattern: "*.txt" })).split("\n");
    assert.equal(lines.length, 1001);
    assert.equal(lines[999], "f0999.txt");
    assert.equal(lines[1000], "[showing 1000 of 1005 matches: narrow the pattern or the path]");
  });
});

Deno.test("the file-tool child's server answers every bad message as data", async () => {
  await withWorkspace(async (ws) => {
    const server = fileToolServer();
    const garbage = await server.answer("not json");
    assert.equal(garbage?.type, "rejected");
    assert.match(garbage?.type === "rejected" ? garbage.message : "", /not JSON/);
    const noTool = await server.answer(
      JSON.stringify({ type: "call", id: 3, args: {}, workspace: ws }),
    );
    assert.ok(noTool?.type === "result" && noTool.id === 3, JSON.stringify(noTool));
    assert.equal(!noTool.ok && noTool.error.kind, "invalid_arguments");
    const badArgs = await server.answer(
      JSON.stringify({
        type: "call",
        id: 4,
        tool: "read_file",
        args: { path: "a", limit: 5000 },
        workspace: ws,
      }),
    );
    assert.ok(badArgs?.type === "result" && !badArgs.ok, JSON.stringify(badArgs));
    assert.equal(badArgs.error.kind, "invalid_arguments");
    assert.match(badArgs.error.message, /limit/);
    const ok = await server.answer(
      JSON.stringify({
        type: "call",
        id: 5,
        tool: "write_file",
        args: { path: "n.txt", content: "" },
        workspace: ws,
      }),
    );
    assert.deepEqual(ok, {
      type: "result",
      id: 5,
      ok: true,
      output: "Created n.txt: 0 bytes, 0 lines",
    });
  });
});
