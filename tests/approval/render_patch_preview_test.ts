import assert from "node:assert/strict";
import { renderPatchPreview } from "../../src/approval/render_patch_preview.ts";

Deno.test("renderPatchPreview() shows the file's diff for a unique replacement", () => {
  assert.equal(
    renderPatchPreview("a\nb\nc\n", { old_string: "b\n", new_string: "B\nB2\n" }, "x.txt"),
    "--- x.txt\n+++ x.txt\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n+B2\n c",
  );
});

Deno.test("renderPatchPreview() says when the tool will refuse the replacement", () => {
  assert.match(
    renderPatchPreview("b\nb\n", { old_string: "b", new_string: "c" }, "x")!,
    /^--- x\n\+\+\+ x\n@@ -1,1 \+1,1 @@\n-b\n\+c\n\(old_string occurs more than once/,
  );
  assert.match(
    renderPatchPreview("a\n", { old_string: "z", new_string: "c" }, "x")!,
    /\(old_string is not in the file now/,
  );
  assert.match(
    renderPatchPreview(null, { old_string: "z", new_string: "c" }, "x")!,
    /\(the file cannot be read for a preview\)$/,
  );
  assert.equal(renderPatchPreview("a", { path: "x" }, "x"), undefined);
});

Deno.test("renderPatchPreview() shows a unified diff's hunks under the real path, cut at 400 lines", () => {
  const diff = "@@ -1 +1 @@\n-a\n+b\n";
  assert.equal(renderPatchPreview("a\n", { diff }, "x"), "--- x\n+++ x\n@@ -1 +1 @@\n-a\n+b");
  const disguised = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-a\n+b\n";
  assert.equal(
    renderPatchPreview(null, { diff: disguised }, "/home/ada/.bashrc"),
    "--- /home/ada/.bashrc\n+++ /home/ada/.bashrc\n@@ -1 +1 @@\n-a\n+b",
    "the path the tool edits is shown, not the names the diff claims",
  );
  const long = ["@@ -1,0 +1,500 @@", ...Array.from({ length: 500 }, (_, i) => `+${i}`)].join("\n");
  const shown = renderPatchPreview(null, { diff: long }, "x")!.split("\n");
  assert.equal(shown.length, 401);
  assert.equal(shown[400], "… 103 more diff lines not shown");
});
