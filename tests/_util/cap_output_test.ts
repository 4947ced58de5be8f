import assert from "node:assert/strict";
import { capOutput, DEFAULT_CAP_LIMITS } from "../../src/_util/cap_output.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;

function marker(text: string): { omitted: number; lines: number } {
  const m = /\[odek: (\d+) bytes \((\d+) lines\) omitted from the middle of this output\]/.exec(
    text,
  );
  assert.ok(m, text.slice(0, 200));
  return { omitted: Number(m[1]), lines: Number(m[2]) };
}

Deno.test("capOutput() keeps text up to maxBytes whole", () => {
  const text = "x".repeat(DEFAULT_CAP_LIMITS.maxBytes);
  assert.deepEqual(capOutput(text, DEFAULT_CAP_LIMITS), { text, omittedBytes: 0, omittedLines: 0 });
  // Multi-byte text at exactly the limit (4 bytes a character) is whole too.
  const wide = "😀".repeat(DEFAULT_CAP_LIMITS.maxBytes / 4);
  assert.equal(capOutput(wide, DEFAULT_CAP_LIMITS).omittedBytes, 0);
});

Deno.test("capOutput() keeps 12 KiB of head and 4 KiB of tail by default, and the marker gives the omitted bytes", () => {
  const text = "h".repeat(20_000) + "t".repeat(20_000);
  const out = capOutput(text, DEFAULT_CAP_LIMITS);
  const [head, , tail] = out.text.split("\n");
  assert.equal(head, "h".repeat(12_288));
  assert.equal(tail, "t".repeat(4_096));
  assert.equal(out.omittedBytes, 40_000 - 12_288 - 4_096);
  assert.deepEqual(marker(out.text), { omitted: out.omittedBytes, lines: 0 });
});

Deno.test("capOutput() never splits a UTF-8 character and accounts for every byte", async (t) => {
  for (const char of ["é", "中", "😀"]) {
    await t.step(char, () => {
      const text = `a${char.repeat(3000)}`;
      const limits = { maxBytes: 2048, headBytes: 1001, tailBytes: 999 };
      const out = capOutput(text, limits);
      assert.ok(!out.text.includes("\uFFFD"), "a character was split");
      const { omitted } = marker(out.text);
      const [head, tail] = out.text.split(/\n?\[odek: [^\]]*\]\n?/);
      assert.equal(bytes(head) + omitted + bytes(tail), bytes(text));
      assert.ok(bytes(head) <= limits.headBytes && bytes(head) > limits.headBytes - 4);
      assert.ok(bytes(tail) <= limits.tailBytes && bytes(tail) > limits.tailBytes - 4);
    });
  }
});

Deno.test("capOutput() cuts after a line break when one is near, and counts omitted lines", () => {
  const lines = Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(4, "0")}`);
  const text = `${lines.join("\n")}\n`;
  const out = capOutput(text, { maxBytes: 4096, headBytes: 2000, tailBytes: 1000 });
  const [head, tail] = out.text.split(/\[odek: [^\]]*\]\n/);
  assert.ok(head.endsWith("\n") && /^line \d{4}$/.test(head.trimEnd().split("\n").at(-1)!));
  assert.match(tail, /^line \d{4}\n/);
  const { omitted, lines: omittedLines } = marker(out.text);
  assert.equal(bytes(head) + omitted + bytes(tail), bytes(text));
  assert.equal(out.omittedLines, omittedLines);
  const kept = head.split("\n").length - 1 + tail.split("\n").length - 1;
  assert.equal(kept + omittedLines, 2000);
});

Deno.test("capOutput() refuses limits whose head and tail exceed the cap", () => {
  assert.throws(
    () => capOutput("x", { maxBytes: 100, headBytes: 80, tailBytes: 30 }),
    RangeError,
  );
});
