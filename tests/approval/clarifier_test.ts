import assert from "node:assert/strict";
import { NoOperatorClarifier } from "../../src/approval/clarifier.ts";
import { TerminalClarifier } from "../../src/approval/terminal_clarifier.ts";

class Sink {
  text = "";
  write(p: Uint8Array): Promise<number> {
    this.text += new TextDecoder().decode(p);
    return Promise.resolve(p.length);
  }
}

async function withFile(content: string, fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/tty`, content);
    await fn(`${dir}/tty`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TerminalClarifier reads one answer line from the terminal device and shows controls escaped", async () => {
  await withFile("  use main  \nignored\n", async (ttyPath) => {
    const out = new Sink();
    const answer = await new TerminalClarifier({ ttyPath, output: out }).ask("Which\u202e branch?");
    assert.deepEqual(answer, { answered: true, answer: "use main" });
    assert.match(out.text, /Which\\u\{202e\} branch\?/);
  });
});

Deno.test("TerminalClarifier: an empty line or end of input is no answer", async () => {
  for (const content of ["\n", ""]) {
    await withFile(content, async (ttyPath) => {
      const answer = await new TerminalClarifier({ ttyPath, output: new Sink() }).ask("q?");
      assert.equal(answer.answered, false);
      assert.match(answer.answered ? "" : answer.reason, /no answer/);
    });
  }
});

Deno.test("TerminalClarifier caps long answers; NoOperatorClarifier never answers", async () => {
  await withFile(`${"a".repeat(50)}\n`, async (ttyPath) => {
    const answer = await new TerminalClarifier({ ttyPath, output: new Sink(), maxAnswerChars: 10 })
      .ask("q");
    assert.deepEqual(answer, { answered: true, answer: "a".repeat(10) });
  });
  const none = await new NoOperatorClarifier("the run is non-interactive").ask("q");
  assert.equal(none.answered, false);
  assert.match(none.answered ? "" : none.reason, /non-interactive.*best judgement/);
});

Deno.test("TerminalClarifier shows tag characters and the Arabic letter mark escaped", async () => {
  // Found by the adversarial review: the prompt escaper missed U+061C (a bidi mark) and the
  // invisible tag characters U+E0000..U+E007F, which neutralizeText removes everywhere else.
  await withFile("yes\n", async (ttyPath) => {
    const out = new Sink();
    await new TerminalClarifier({ ttyPath, output: out }).ask("Proceed\u061c?\u{E0041}\u{E0042}");
    assert.match(out.text, /Proceed\\u\{61c\}\?\\u\{e0041\}\\u\{e0042\}/);
  });
});
