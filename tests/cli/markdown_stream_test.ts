import assert from "node:assert/strict";
import { MarkdownStream } from "../../src/cli/markdown_stream.ts";

function render(pieces: string[], color = false): { out: string; writes: string[] } {
  const writes: string[] = [];
  const md = new MarkdownStream({ write: (t) => void writes.push(t), color });
  for (const piece of pieces) md.write(piece);
  md.end();
  return { out: writes.join(""), writes };
}

Deno.test("MarkdownStream renders headings, lists, code blocks and inline code", () => {
  const { out } = render([
    "# Title\n\nSome **bold** and `code`.\n\n- a `tick` item\n- **strong** item\n\n```ts\nconst x = 1;\n```\n",
  ]);
  assert.match(out, /# Title/);
  assert.match(out, /Some bold and code\./);
  assert.match(out, /\* a tick item/, "inline code inside a tight list item is rendered");
  assert.match(out, /\* strong item/);
  assert.match(out, /const x = 1;/);
  assert.doesNotMatch(out, /\*\*|`/);
});

Deno.test("MarkdownStream renders each block once it is complete, not a code block cut in half", () => {
  const { writes } = render([
    "Intro para",
    "graph.\n\n```\nline one\n",
    "\nline two\n```\n",
    "tail",
  ]);
  assert.equal(writes.length, 3, JSON.stringify(writes));
  assert.match(writes[0], /^Intro paragraph\.\n/);
  assert.match(writes[1], /line one\n\s*\n\s*line two/);
  assert.match(writes[2], /tail/);
});

Deno.test("MarkdownStream: the model's escapes never reach the terminal, links keep no OSC 8", () => {
  const { out } = render([
    "Look\x1b[2J\x1b]0;pwned\x07 here: [docs](http://127.0.0.1:9/x) and \x1b]8;;http://127.0.0.1:9/\x07hidden\x1b]8;;\x07\n",
  ], true);
  // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
  assert.doesNotMatch(out, /\x1b\[2J|\x1b\]/);
  assert.match(out, /127\.0\.0\.1:9\/x/, "the link target is shown");
  // Only colour and style sequences are left.
  // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
  assert.deepEqual(out.match(/\x1b[^m]*?[A-Za-ln-z]/g) ?? [], []);
});

Deno.test("MarkdownStream without colour prints plain text", () => {
  const { out } = render(["## Heading\n\n*em* text\n"]);
  // deno-lint-ignore no-control-regex -- matching terminal escape sequences is the point
  assert.doesNotMatch(out, /\x1b/);
});
