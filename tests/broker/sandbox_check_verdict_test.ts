/**
 * `SandboxCheckVerdict`: the check's word is read from the very first bytes of a sandbox's stderr
 * only, however the bytes are cut into chunks; the `passed` token is removed and nothing else.
 */
import assert from "node:assert/strict";
import { SANDBOX_CHECK_MARKER, SANDBOX_CHECK_PASSED } from "../../src/broker/_sandbox_check.ts";
import { SandboxCheckVerdict } from "../../src/broker/_sandbox_check_verdict.ts";

const encoder = new TextEncoder();
const REFUSAL = `${SANDBOX_CHECK_MARKER} the mount at /w is not rw; nothing was run`;

/** Pipe `chunks` through a verdict; the text passed on and the verdict. */
async function read(chunks: string[]) {
  const check = new SandboxCheckVerdict();
  const stream = ReadableStream.from(chunks.map((c) => encoder.encode(c))).pipeThrough(check);
  const text = await new Response(stream).text();
  return { text, verdict: check.verdict };
}

/** Every way to cut `text` in two, and in single bytes. */
function cuts(text: string): string[][] {
  const out = [[text], text.split("")];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  return out;
}

Deno.test("SandboxCheckVerdict removes the passed token at the head and keeps the program's bytes", async () => {
  const program = `warning\n${REFUSAL}\n${SANDBOX_CHECK_PASSED}`;
  for (const chunks of cuts(`${SANDBOX_CHECK_PASSED}${program}`)) {
    const { text, verdict } = await read(chunks);
    assert.deepEqual(verdict, { type: "passed" }, JSON.stringify(chunks));
    assert.equal(text, program, JSON.stringify(chunks));
  }
  assert.deepEqual(await read([SANDBOX_CHECK_PASSED]), {
    text: "",
    verdict: { type: "passed" },
  });
});

Deno.test("SandboxCheckVerdict reads a refusal only from the check's line at the head", async () => {
  for (const chunks of cuts(`${REFUSAL}\n`)) {
    const { text, verdict } = await read(chunks);
    assert.deepEqual(verdict, { type: "refused", reason: REFUSAL }, JSON.stringify(chunks));
    assert.equal(text, `${REFUSAL}\n`, "the refusal's line is passed on");
  }
  // Without its newline (the stream ended): still the check's line.
  assert.deepEqual((await read([REFUSAL])).verdict, { type: "refused", reason: REFUSAL });
});

Deno.test("SandboxCheckVerdict: stderr that starts with neither word is unchecked and passed on whole", async (t) => {
  const cases: [string, string[]][] = [
    ["empty", []],
    ["bwrap's own error", ["bwrap: Can't mount proc on /newroot/proc: Operation not permitted\n"]],
    ["a cut-off token", ["odek: sandbox check pa"]],
    ["the marker after other bytes", [` ${REFUSAL}\n`]],
    ["the token after other bytes", [`x${SANDBOX_CHECK_PASSED}`]],
  ];
  for (const [name, chunks] of cases) {
    await t.step(name, async () => {
      const { text, verdict } = await read(chunks);
      assert.deepEqual(verdict, { type: "unchecked" });
      assert.equal(text, chunks.join(""));
    });
  }
});

Deno.test("SandboxCheckVerdict.of() reads a whole stderr the same way", () => {
  const of = (text: string) => {
    const { verdict, rest } = SandboxCheckVerdict.of(encoder.encode(text));
    return { verdict, rest: new TextDecoder().decode(rest) };
  };
  assert.deepEqual(of(`${SANDBOX_CHECK_PASSED}out\n`), {
    verdict: { type: "passed" },
    rest: "out\n",
  });
  assert.deepEqual(of(`${REFUSAL}\n`), {
    verdict: { type: "refused", reason: REFUSAL },
    rest: `${REFUSAL}\n`,
  });
  assert.deepEqual(of("out\n"), { verdict: { type: "unchecked" }, rest: "out\n" });
});
