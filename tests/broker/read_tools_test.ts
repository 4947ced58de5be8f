// The reading file tools of tools/ run in-process: binary detection, search_files (regex,
// .gitignore, skipped directories, caps), tree, file_info and head_tail.
// file_tool_child_test.ts runs them in a real sandboxed child.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileInfo as fileInfoHandler } from "../../tools/_file_info.ts";
import { headTail as headTailHandler } from "../../tools/_head_tail.ts";
import { readFile as readFileHandler } from "../../tools/_read_file.ts";
import { searchFiles as searchFilesHandler } from "../../tools/_search_files.ts";
import { tree as treeHandler } from "../../tools/_tree.ts";
import { failsWith, viaCatalogue, withWorkspace } from "./_workspace.ts";

const fileInfo = viaCatalogue("file_info", fileInfoHandler);
const headTail = viaCatalogue("head_tail", headTailHandler);
const readFile = viaCatalogue("read_file", readFileHandler);
const searchFiles = viaCatalogue("search_files", searchFilesHandler);
const tree = viaCatalogue("tree", treeHandler);

async function plant(ws: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await Deno.mkdir(join(ws, path, ".."), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(join(ws, path), content);
    else await Deno.writeFile(join(ws, path), content);
  }
}

Deno.test("readFile() refuses invalid UTF-8 in the first 8 KiB with the size and a hint", async () => {
  await withWorkspace(async (ws) => {
    const latin1 = new Uint8Array([...new TextEncoder().encode("caf"), 0xe9, 0x0a]);
    await plant(ws, { "latin1.txt": latin1 });
    await assert.rejects(
      readFile(ws, { path: "latin1.txt" }),
      failsWith("failed", /latin1\.txt looks binary \(invalid UTF-8; 5 bytes\): .*file_info/),
    );
    // A multi-byte character cut by the 8 KiB boundary is still text.
    await plant(ws, { "cut.txt": `${"a".repeat(8191)}é\n` });
    assert.match(await readFile(ws, { path: "cut.txt" }), /^1\|a+é\n/);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await plant(ws, { "i.png": png });
    await assert.rejects(
      headTail(ws, { path: "i.png" }),
      failsWith("failed", /looks binary \(a NUL byte at offset 8; 12 bytes\): head_tail/),
    );
  });
});

Deno.test("searchFiles() returns path:line:text, respects .gitignore and skips dependency directories", async () => {
  await withWorkspace(async (ws) => {
    await plant(ws, {
      ".gitignore": "*.log\n/generated/\n!keep.log\n",
      "src/a.ts": "const needle = 1;\nother\n  NEEDLE again\n",
      "src/.gitignore": "local.ts\n",
      "src/local.ts": "needle in a locally ignored file\n",
      "src/sub/b.ts": "no match\nneedle\n",
      "app.log": "needle in an ignored log\n",
      "keep.log": "needle in a re-included log\n",
      "generated/x.ts": "needle in an ignored directory\n",
      "node_modules/m/i.js": "needle\n",
      "vendor/v.go": "needle\n",
      ".venv/lib.py": "needle\n",
      "__pycache__/c.py": "needle\n",
      "dist/o.js": "needle\n",
      "build/o.js": "needle\n",
      "target/o.rs": "needle\n",
      ".git/HEAD": "needle\n",
      "bin.dat": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]),
    });
    assert.equal(
      await searchFiles(ws, { pattern: "needle" }),
      "keep.log:1:needle in a re-included log\nsrc/a.ts:1:const needle = 1;\nsrc/sub/b.ts:2:needle",
    );
    assert.equal(
      await searchFiles(ws, { pattern: "^\\s*needle", ignore_case: true, path: "src" }),
      "src/a.ts:3:  NEEDLE again\nsrc/sub/b.ts:2:needle",
    );
    assert.equal(
      await searchFiles(ws, { pattern: "needle", include: "sub/*.ts", path: "src" }),
      "src/sub/b.ts:2:needle",
    );
    assert.equal(
      await searchFiles(ws, { pattern: "needle", path: "src/local.ts" }),
      "src/local.ts:1:needle in a locally ignored file",
      "a file named directly is searched",
    );
    assert.match(
      await searchFiles(ws, { pattern: "absent" }),
      /^\(no line matches absent in \d+ text files under \.\)$/,
    );
    await assert.rejects(
      searchFiles(ws, { pattern: "(" }),
      failsWith("invalid_arguments", /not a valid JavaScript regular expression/),
    );
    await assert.rejects(
      searchFiles(ws, { pattern: "x", path: "../" }),
      failsWith("denied", /outside/),
    );
  });
});

Deno.test("searchFiles() stops at max_results and says so", async () => {
  await withWorkspace(async (ws) => {
    await plant(ws, { "many.txt": "hit\n".repeat(50), "z.txt": "hit\n" });
    const out = (await searchFiles(ws, { pattern: "hit", max_results: 10 })).split("\n");
    assert.equal(out.length, 11);
    assert.equal(out[9], "many.txt:10:hit");
    assert.equal(out[10], "[stopped at max_results=10: narrow the pattern, path or include]");
  });
});

Deno.test("searchFiles() and tree() never follow symlinks out of the workspace", async (t) => {
  await withWorkspace(async (ws, outside) => {
    await plant(ws, { "a.txt": "secret? no\n" });
    await Deno.writeTextFile(join(outside, "secret.txt"), "secret value\n");
    await Deno.symlink(outside, join(ws, "out"));
    await Deno.symlink(join(outside, "secret.txt"), join(ws, "s.txt"));
    await t.step("search", async () => {
      assert.equal(await searchFiles(ws, { pattern: "secret" }), "a.txt:1:secret? no");
    });
    await t.step("tree", async () => {
      const out = await tree(ws, {});
      assert.match(out, new RegExp(`\n  out -> ${outside}\n`));
      assert.doesNotMatch(out, /secret\.txt \(/);
    });
  });
});

Deno.test("tree() outlines to the depth limit with sizes, skips and a summary", async () => {
  await withWorkspace(async (ws) => {
    await plant(ws, {
      ".gitignore": "*.tmp\n",
      "a/b/c/d.txt": "1234",
      "a/x.ts": "x",
      "junk.tmp": "",
      "node_modules/m.js": "",
      "README.md": "hello",
    });
    assert.equal(
      await tree(ws, { depth: 2 }),
      [
        "./",
        "  .gitignore (6 bytes)",
        "  README.md (5 bytes)",
        "  a/",
        "    b/ …",
        "    x.ts (1 bytes)",
        '[2 directories, 3 files; "…" marks directories deeper than depth=2]',
      ].join("\n"),
    );
    assert.equal(
      await tree(ws, { path: "a", max_entries: 2 }),
      "a/\n  b/\n    c/\n[2 directories, 0 files; cut at max_entries=2: narrow the path or lower the depth]",
    );
    await assert.rejects(tree(ws, { path: "README.md" }), failsWith("failed", /not a directory/));
  });
});

Deno.test("fileInfo() describes files, directories and symlinks without following them", async () => {
  await withWorkspace(async (ws, outside) => {
    await plant(ws, { "a.txt": "x\ny\nz", "d/e.txt": "", "b.bin": new Uint8Array([0, 1]) });
    await Deno.chmod(join(ws, "a.txt"), 0o640);
    const file = await fileInfo(ws, { path: "a.txt" });
    assert.match(
      file,
      /^path: a\.txt\ntype: file\nsize: 5 bytes\nmode: 0640\nmodified: \d{4}-\d\d-\d\dT.*Z\nlines: 3$/,
    );
    assert.match(await fileInfo(ws, { path: "b.bin" }), /binary: a NUL byte at offset 0$/);
    assert.match(await fileInfo(ws, { path: "d" }), /type: directory\n.*\n.*\n.*\nentries: 1$/);
    assert.match(await fileInfo(ws, { path: "." }), /^path: \.\ntype: directory/);
    await Deno.symlink(join(outside, "nothing"), join(ws, "out"));
    assert.match(
      await fileInfo(ws, { path: "out" }),
      new RegExp(
        `type: symlink\n[^]*target: ${outside}/nothing\ntarget inside the workspace: no \\(not followed\\)$`,
      ),
    );
    await Deno.symlink("a.txt", join(ws, "in"));
    assert.match(
      await fileInfo(ws, { path: "in" }),
      /target: a\.txt\ntarget inside the workspace: yes$/,
    );
    await Deno.symlink(outside, join(ws, "outdir"));
    await assert.rejects(fileInfo(ws, { path: "outdir/x" }), failsWith("denied", /symlink/));
    await assert.rejects(fileInfo(ws, { path: "nope" }), failsWith("failed", /does not exist/));
  });
});

Deno.test("headTail() returns the first or last lines, numbered", async () => {
  await withWorkspace(async (ws) => {
    await plant(ws, {
      "n.txt": Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join("\n") + "\n",
    });
    assert.equal(
      await headTail(ws, { path: "n.txt", lines: 2 }),
      "1|l1\n2|l2\n[first 2 lines of n.txt; read on with read_file offset=3]",
    );
    assert.equal(
      await headTail(ws, { path: "n.txt", from: "tail", lines: 2 }),
      "29|l29\n30|l30\n[last 2 of 30 lines of n.txt]",
    );
    await plant(ws, { "s.txt": "only\n", "e.txt": "" });
    assert.equal(await headTail(ws, { path: "s.txt", lines: 5 }), "1|only\n[all 1 lines of s.txt]");
    assert.equal(await headTail(ws, { path: "e.txt" }), "(e.txt is empty: 0 lines)");
    await assert.rejects(headTail(ws, { path: "n.txt", lines: 0 }), /lines/);
  });
});
