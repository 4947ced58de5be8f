import assert from "node:assert/strict";
import { renderWriteDiff } from "../../src/approval/render_write_diff.ts";

const H = "--- f\n+++ f";

Deno.test("renderWriteDiff() renders unified hunks", async (t) => {
  const ten = Array.from({ length: 10 }, (_, i) => `l${i + 1}`);
  const text = (lines: string[]) => lines.map((l) => `${l}\n`).join("");
  const rows: [string, string | null, string, string][] = [
    ["equal", "a\nb\n", "a\nb\n", `${H}\n(no changes)`],
    ["new file", null, "x\ny\n", "--- /dev/null\n+++ f\n@@ -0,0 +1,2 @@\n+x\n+y"],
    ["emptied", "x\n", "", `${H}\n@@ -1,1 +0,0 @@\n-x`],
    ["one line changed", "a\nb\nc\n", "a\nB\nc\n", `${H}\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c`],
    ["append", "a\n", "a\nb\n", `${H}\n@@ -1,1 +1,2 @@\n a\n+b`],
    ["insert at top", "a\n", "z\na\n", `${H}\n@@ -1,1 +1,2 @@\n+z\n a`],
    ["no final newline", "a\nb", "a\nc", `${H}\n@@ -1,2 +1,2 @@\n a\n-b\n+c`],
    [
      "context is cut to 3 lines",
      text(ten),
      text(ten.map((l) => (l === "l5" ? "L5" : l))),
      `${H}\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8`,
    ],
    [
      "far changes make two hunks",
      text([...ten, ...ten]),
      text(["X", ...ten.slice(1), ...ten.slice(0, 9), "Y"]),
      `${H}\n@@ -1,4 +1,4 @@\n-l1\n+X\n l2\n l3\n l4\n@@ -17,4 +17,4 @@\n l7\n l8\n l9\n-l10\n+Y`,
    ],
    [
      "near changes share a hunk",
      text(ten),
      text(ten.map((l) => (l === "l2" || l === "l9" ? l.toUpperCase() : l))),
      `${H}\n@@ -1,10 +1,10 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n l6\n l7\n l8\n-l9\n+L9\n l10`,
    ],
  ];
  for (const [name, before, after, expected] of rows) {
    await t.step(name, () => assert.equal(renderWriteDiff(before, after, { path: "f" }), expected));
  }
});

Deno.test("renderWriteDiff() caps the output and says how much it left out", () => {
  const after = Array.from({ length: 50 }, (_, i) => `n${i}`).join("\n");
  const diff = renderWriteDiff(null, after, { path: "f", maxLines: 10 }).split("\n");
  assert.equal(diff.length, 2 + 10 + 1);
  assert.equal(diff.at(-1), "… 41 more diff lines not shown");
});

Deno.test("renderWriteDiff() falls back to remove-all/add-all above maxCells", () => {
  const diff = renderWriteDiff("a\nb\nc\n", "a\nx\nb\n", { path: "f", maxCells: 1 });
  assert.equal(diff, `${H}\n@@ -1,3 +1,3 @@\n a\n-b\n-c\n+x\n+b`);
});

function lcsLength(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      dp[i][j] = a[i - 1] === b[j - 1]
        ? dp[i - 1][j - 1] + 1
        : Math.max(dp[i - 1][j], dp[i][j - 1]);
    }
  }
  return dp[a.length][b.length];
}

Deno.test("renderWriteDiff() with full context rebuilds both texts with a minimal edit", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const randomLines = () =>
    Array.from({ length: Math.floor(random() * 12) }, () => "abc"[Math.floor(random() * 3)]);
  for (let round = 0; round < 300; round++) {
    const a = randomLines();
    const b = randomLines();
    const diff = renderWriteDiff(a.map((l) => `${l}\n`).join(""), b.map((l) => `${l}\n`).join(""), {
      context: 1_000,
    });
    const body = diff.split("\n").slice(2).filter((l) => !l.startsWith("@@"));
    if (body[0] === "(no changes)") {
      assert.deepEqual(a, b);
      continue;
    }
    assert.deepEqual(body.filter((l) => l[0] !== "+").map((l) => l.slice(1)), a, diff);
    assert.deepEqual(body.filter((l) => l[0] !== "-").map((l) => l.slice(1)), b, diff);
    const edits = body.filter((l) => l[0] !== " ").length;
    assert.equal(edits, a.length + b.length - 2 * lcsLength(a, b), diff);
  }
});
