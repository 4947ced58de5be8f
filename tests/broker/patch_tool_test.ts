// The patch tool of tools/ run in-process: exact replacement, unified diffs, and every refusal
// (no match, several matches, stale or ambiguous hunks) leaving the file as it was.
// file_tool_child_test.ts runs it in a real sandboxed child.
import assert from "node:assert/strict";
import { join } from "node:path";
import { patch as patchHandler } from "../../tools/_patch.ts";
import { failsWith, viaCatalogue, withWorkspace } from "./_workspace.ts";

const patch = viaCatalogue("patch", patchHandler);

const SOURCE = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n";

Deno.test("patch() replaces a unique old_string atomically, keeps the mode and shows the diff", async () => {
  await withWorkspace(async (ws) => {
    const file = join(ws, "a.ts");
    await Deno.writeTextFile(file, SOURCE);
    await Deno.chmod(file, 0o600);
    const out = await patch(ws, {
      path: "a.ts",
      old_string: "function b() {\n  return 1;",
      new_string: "function b() {\n  return 2;",
    });
    assert.equal(
      await Deno.readTextFile(file),
      "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n",
    );
    assert.match(out, /^Patched a\.ts:\n--- a\.ts\n\+\+\+ a\.ts\n@@ -3,5 \+3,5 @@/);
    assert.match(out, /\n- {2}return 1;\n\+ {2}return 2;\n/);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(ws))).map((e) => e.name), ["a.ts"]);
  });
});

Deno.test("patch() refuses an old_string that matches several times or not at all, naming the lines", async () => {
  await withWorkspace(async (ws) => {
    const file = join(ws, "a.ts");
    await Deno.writeTextFile(file, SOURCE);
    await assert.rejects(
      patch(ws, { path: "a.ts", old_string: "return 1;", new_string: "return 3;" }),
      failsWith("failed", /old_string occurs 2 times in a\.ts, at lines 2, 6: include more/),
    );
    await assert.rejects(
      patch(ws, { path: "a.ts", old_string: "return 9;", new_string: "return 3;" }),
      failsWith("failed", /old_string occurs 0 times in a\.ts: read the file again/),
    );
    await Deno.writeTextFile(join(ws, "crlf.txt"), "a\r\nb\r\n");
    await assert.rejects(
      patch(ws, { path: "crlf.txt", old_string: "a\nb", new_string: "c" }),
      failsWith("failed", /CRLF/),
    );
    await assert.rejects(
      patch(ws, { path: "a.ts", old_string: "x", new_string: "x" }),
      failsWith("invalid_arguments", /the same/),
    );
    await assert.rejects(patch(ws, { path: "a.ts", old_string: "x" }), /either old_string/);
    assert.equal(await Deno.readTextFile(file), SOURCE, "the file is unchanged");
  });
});

Deno.test("patch() applies a unified diff whose hunks each match one place", async () => {
  await withWorkspace(async (ws) => {
    const file = join(ws, "a.ts");
    await Deno.writeTextFile(file, SOURCE);
    const diff = [
      "--- a/a.ts",
      "+++ b/a.ts",
      "@@ -1,3 +1,3 @@",
      " function a() {",
      "-  return 1;",
      "+  return 10;",
      " }",
      "@@ -5,3 +5,4 @@",
      " function b() {",
      "-  return 1;",
      "+  const x = 20;",
      "+  return x;",
      " }",
      "",
    ].join("\n");
    const out = await patch(ws, { path: "a.ts", diff });
    assert.equal(
      await Deno.readTextFile(file),
      "function a() {\n  return 10;\n}\n\nfunction b() {\n  const x = 20;\n  return x;\n}\n",
    );
    assert.match(out, /\+ {2}return 10;/);
    await Deno.writeTextFile(join(ws, "crlf.txt"), "one\r\ntwo\r\n");
    await patch(ws, { path: "crlf.txt", diff: "@@ -1,2 +1,2 @@\n one\n-two\n+2\n" });
    assert.equal(await Deno.readTextFile(join(ws, "crlf.txt")), "one\r\n2\r\n");
  });
});

Deno.test("patch() refuses ambiguous and stale hunks with the reason and leaves the file alone", async () => {
  await withWorkspace(async (ws) => {
    const file = join(ws, "a.ts");
    await Deno.writeTextFile(file, SOURCE);
    await assert.rejects(
      patch(ws, { path: "a.ts", diff: "@@ -6,2 +6,2 @@\n-  return 1;\n+  return 2;\n }\n" }),
      failsWith(
        "failed",
        /hunk 1 \(@@ -6,2 \+6,2 @@\) is ambiguous: .* at lines 2, 6\. Add context/,
      ),
    );
    await assert.rejects(
      patch(ws, {
        path: "a.ts",
        diff: "@@ -1,2 +1,2 @@\n function a() {\n-  return 7;\n+  return 2;\n",
      }),
      failsWith("failed", /hunk 1 .* is stale: .*the line " {2}return 7;" is not in the file/),
    );
    await assert.rejects(
      patch(ws, {
        path: "a.ts",
        diff:
          "@@ -1,2 +1,2 @@\n function a() {\n   return 1;\n@@ -5,2 +5,2 @@\n-function c() {\n+function d() {\n   return 1;\n",
      }),
      failsWith("failed", /hunk 2 .* is stale/),
    );
    await assert.rejects(
      patch(ws, { path: "a.ts", diff: "@@ -1,5 +1,2 @@\n a\n-b\n+c\n" }),
      failsWith("invalid_arguments", /cannot be parsed/),
    );
    await assert.rejects(
      patch(ws, { path: "a.ts", diff: "just words" }),
      failsWith("invalid_arguments", /no hunk/),
    );
    const twoFiles = "--- a\n+++ a\n@@ -1 +1 @@\n-x\n+y\n--- b\n+++ b\n@@ -1 +1 @@\n-x\n+y\n";
    await assert.rejects(
      patch(ws, { path: "a.ts", diff: twoFiles }),
      failsWith("invalid_arguments", /names 2 files/),
    );
    assert.equal(await Deno.readTextFile(file), SOURCE, "the file is unchanged");
  });
});

Deno.test("patch() refuses binary, missing and outside files", async () => {
  await withWorkspace(async (ws, outside) => {
    await Deno.writeFile(join(ws, "b.bin"), new Uint8Array([1, 2, 0, 3]));
    await assert.rejects(
      patch(ws, { path: "b.bin", old_string: "a", new_string: "b" }),
      failsWith("failed", /looks binary/),
    );
    await assert.rejects(
      patch(ws, { path: "nope.ts", old_string: "a", new_string: "b" }),
      failsWith("failed", /does not exist/),
    );
    await Deno.writeTextFile(join(outside, "o.txt"), "a");
    await Deno.symlink(join(outside, "o.txt"), join(ws, "link"));
    await assert.rejects(
      patch(ws, { path: "link", old_string: "a", new_string: "b" }),
      failsWith("denied", /symlink/),
    );
    assert.equal(await Deno.readTextFile(join(outside, "o.txt")), "a");
  });
});
